/* The library half of the sites test program: a site inside a shared library. */
#ifndef LIBSITES_H
#define LIBSITES_H

/* lib_call calls cb with the tag "lib_call", so that cb's return address is in the library. */
void lib_call(void (*cb)(const char *tag));

#endif
