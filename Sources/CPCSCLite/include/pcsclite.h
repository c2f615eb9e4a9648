/* Forwards the sibling include in <PCSC/winscard.h>; see CPCSCLite.h. */
#include <PCSC/pcsclite.h>
