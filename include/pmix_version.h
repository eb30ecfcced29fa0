/*
 * pmix_version.h - release identification for this PMIx implementation.
 *
 * We are a drop-in replacement for the OpenPMIx 4.2.2 library (libpmix.so.2),
 * so we report that release: callers compare these numbers to decide which
 * API and ABI features they may rely on.
 */
#ifndef PMIx_VERSION_H
#define PMIx_VERSION_H

#define PMIX_VERSION_MAJOR 4L
#define PMIX_VERSION_MINOR 2L
#define PMIX_VERSION_RELEASE 2L

/* 0x00MMmmrr: major, minor and release packed one byte each */
#define PMIX_NUMERIC_VERSION 0x00040202

#endif /* PMIx_VERSION_H */
