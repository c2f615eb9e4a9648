#ifndef CLINUXINPUT_H
#define CLINUXINPUT_H

// The evdev ioctls Swift cannot call itself: ioctl(2) is variadic, and its request numbers are macros.

/// EVIOCGRAB: 1 takes the device for this descriptor alone, 0 gives it back. 0 or -1 with errno.
int clinuxinput_grab(int descriptor, int grab);

/// EVIOCGNAME: the device's name, NUL-terminated in `name` (at most `capacity` bytes). Its length or -1 with errno.
int clinuxinput_name(int descriptor, char *name, unsigned int capacity);

#endif
