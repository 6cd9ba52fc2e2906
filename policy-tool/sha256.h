/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SHA-256, by libnettle (which every Debian system has, through apt's
 * GnuTLS): the digest of the kernel's rules file is the "policy=" of
 * denywrite's audit records.
 */
#ifndef DENYWRITECTL_SHA256_H
#define DENYWRITECTL_SHA256_H

#include <stddef.h>

#define SHA256_HEX_LEN 64

/* The digest of len bytes at data, as 64 lowercase hex digits and a NUL. */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);

#endif
