/* version: the tuner's version, for --version and the provenance of emitted sources. */
#ifndef TUNER_VERSION_H
#define TUNER_VERSION_H

#define TUNER_VERSION "0.1"

#endif
