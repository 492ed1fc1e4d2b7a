/* The release both programs report with --version and write into HOST. */
#ifndef VERSION_H
#define VERSION_H
#define FPMCPU_VERSION "0.1.0"
#endif
