#include "CPCSCLite.h"

const SCARD_IO_REQUEST *cpcsc_pci(DWORD active_protocol)
{
    return active_protocol == SCARD_PROTOCOL_T0 ? SCARD_PCI_T0 : SCARD_PCI_T1;
}
