/* version: the tuner's version, one definition for --version and emitted sources. */
#ifndef TUNER_VERSION_H
#define TUNER_VERSION_H

#define TUNER_VERSION "0.1"

#endif
