/* Forwards the sibling include in <PCSC/pcsclite.h>; see CPCSCLite.h. */
#include <PCSC/wintypes.h>
