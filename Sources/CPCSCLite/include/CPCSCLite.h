/* pcsc-lite's client API. Its headers include their siblings with <...>, which
 * pkg-config's -I/usr/include/PCSC would solve, but SwiftPM ignores the -pthread
 * in the same Cflags with a warning; the two forwarding headers beside this one
 * resolve those includes instead. */
#include <PCSC/winscard.h>
#include <PCSC/reader.h>

/* The protocol control information for SCardTransmit: SCARD_PCI_T0/T1 are macros Swift cannot import. */
const SCARD_IO_REQUEST *cpcsc_pci(DWORD active_protocol);
