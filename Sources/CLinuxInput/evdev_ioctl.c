#include "CLinuxInput.h"

#include <linux/input.h>
#include <sys/ioctl.h>

int clinuxinput_grab(int descriptor, int grab) {
    return ioctl(descriptor, EVIOCGRAB, grab);
}

int clinuxinput_name(int descriptor, char *name, unsigned int capacity) {
    if (capacity == 0) return -1;
    int length = ioctl(descriptor, EVIOCGNAME(capacity), name);
    if (length >= 0) name[capacity - 1] = '\0';
    return length;
}
