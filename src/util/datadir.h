/* Where the program's data (the checklist) and injector live: the
 * installed locations, or the source/build tree when run from there. */
#ifndef TA_UTIL_DATADIR_H
#define TA_UTIL_DATADIR_H

/* The data folder: $TILEADVISE_DATADIR, else the source tree's data/ when the
 * running binary is the one built in this tree, else $(pkgdatadir).
 * The string is static. */
const char *ta_datadir(void);

/* The folder holding libtileadvise-cupti.so: $TILEADVISE_LIBDIR, else the
 * build tree's src/profile/inject/.libs when running from the build tree,
 * else $(pkglibdir). The string is static. */
const char *ta_libdir(void);

#endif
