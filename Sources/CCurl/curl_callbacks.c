/* curl_callbacks.c: body and header callbacks of one transfer (loop thread only). The body grows
 * in memory under the byte cap (which holds with and without Content-Length); only the final
 * response's headers are kept (a redirect hop or 100 Continue resets them). */
#define _GNU_SOURCE
#include "curl_internal.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static int reserve(unsigned char **buf, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 16 * 1024;
    while (n < need) {
        if (n > SIZE_MAX / 2) { n = need; break; }
        n *= 2;
    }
    unsigned char *p = realloc(*buf, n);
    if (p == NULL) return -1;
    *buf = p;
    *cap = n;
    return 0;
}

size_t ifc_write_cb(char *ptr, size_t size, size_t nmemb, void *userdata) {
    xfer *x = userdata;
    size_t n = size * nmemb;
    if (n == 0) return 0;
    /* The run's overall cap, first: a paused piece is delivered again, so nothing below may have
     * seen it. */
    if (x->bucket != NULL) {
        if (!ifc_bucket_ready(x->bucket)) {
            x->paused = 1;
            return CURL_WRITEFUNC_PAUSE;
        }
        x->bucket->tokens -= (double)n;
    }
    /* Counted once, after the cap: a paused piece comes again. */
    ifc_meter_count(x, n);
    if (x->body_len == 0 && x->tapped_len == 0 && x->tap_data != NULL && !x->tap_broken) {
        /* Only a 2xx body is worth decoding: an error page (a JPEG placeholder on a 404) is not. */
        long status = 0;
        if (cu.easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK || status < 200 || status > 299)
            x->tap_broken = 1;
        /* A resumed body: the tap was given the kept bytes first; only their continuation fits. */
        if (x->range_from > 0 && status != 206) x->tap_broken = 1;
    }
    if (x->tap_only && x->tap_data != NULL && !x->tap_broken) {
        /* Streamed: the tap gets the bytes, the result's body stays empty. */
        if (x->max_bytes > 0 && (long long)(x->tapped_len + n) > x->max_bytes) {
            x->too_large = 1;
            return 0;
        }
        x->tapped_len += n;
        x->tap_data(x->tap_ctx, ptr, n);
        return n;
    }
    /* What a streamed transfer keeps is an error page: its status matters, not a cap's worth of it. */
    long long cap = x->tap_only ? TAP_ONLY_KEPT_LIMIT : x->max_bytes;
    if (cap > 0 && (long long)(x->body_len + n) > cap) {
        x->too_large = 1;
        return 0;
    }
    if (!x->presized) {
        x->presized = 1;
        curl_off_t cl = -1;
        if (cu.easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK && cl > 0 &&
            (x->max_bytes > 0 ? cl <= x->max_bytes : cl <= PRESIZE_LIMIT) &&
            (size_t)cl >= x->body_len + n) {
            unsigned char *p = realloc(x->body, (size_t)cl);
            if (p != NULL) {
                x->body = p;
                x->body_cap = (size_t)cl;
            }
        }
    }
    if (reserve(&x->body, &x->body_cap, x->body_len + n) != 0) {
        x->oom = 1;
        return 0;
    }
    memcpy(x->body + x->body_len, ptr, n);
    x->body_len += n;
    if (x->tap_data != NULL && !x->tap_broken) x->tap_data(x->tap_ctx, ptr, n);
    if (x->watch != NULL) {
        /* Only a 2xx body from its first byte is watched (not a resumed one, not an error page). */
        long status = 0;
        int fits = x->range_from == 0 && cu.easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
                   status >= 200 && status <= 299;
        int verdict = fits ? x->watch(x->watch_ctx, ptr, n) : 2;
        if (verdict == 1) {
            x->stopped = 1;
            return 0;
        }
        if (verdict == 2) x->watch = NULL;
    }
    return n;
}

size_t ifc_header_cb(char *buffer, size_t size, size_t nitems, void *userdata) {
    xfer *x = userdata;
    size_t n = size * nitems;
    if (n >= 5 && memcmp(buffer, "HTTP/", 5) == 0) {
        /* A new response (a redirect hop, 100 Continue, ...): keep only the final one's. */
        x->hdr_len = 0;
        if (x->body_len > 0 || x->tapped_len > 0) x->tap_broken = 1;   /* the tap saw bytes that are no longer the body */
        if (x->body_len > 0) x->watch = NULL;                           /* and so did the watcher */
        x->body_len = 0;
        x->tapped_len = 0;
        x->presized = 0;
        x->metered = 0;
        return n;
    }
    size_t len = n;
    while (len > 0 && (buffer[len - 1] == '\r' || buffer[len - 1] == '\n')) len--;
    if (len == 0) {   /* the blank line ending the header block */
        long status = 0;
        if (x->headers_check != NULL && cu.easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
            status >= 200 && status <= 299 && x->headers_check(x->headers_check_ctx, x->hdr != NULL ? x->hdr : "") == 1) {
            x->stopped = 1;
            return 0;   /* libcurl ends the transfer: CURLE_WRITE_ERROR, taken as `stopped` */
        }
        return n;
    }
    size_t need = x->hdr_len + (x->hdr_len ? 1 : 0) + len + 1;
    if (reserve((unsigned char **)&x->hdr, &x->hdr_cap, need) != 0) {
        x->oom = 1;
        return 0;
    }
    if (x->hdr_len) x->hdr[x->hdr_len++] = '\n';
    memcpy(x->hdr + x->hdr_len, buffer, len);
    x->hdr_len += len;
    x->hdr[x->hdr_len] = '\0';
    return n;
}


/* Whether `addr` (4 or 16 bytes of `family` 4 or 6) is in one of the rules, as it is. */
static int in_rules(const unsigned char *rules, int count, int family, const unsigned char *addr) {
    for (int i = 0; i < count; i++) {
        const unsigned char *r = rules + (size_t)i * IFC_DENY_RULE_SIZE;
        if (r[0] != family) continue;
        int bits = r[1], max = family == 4 ? 32 : 128;
        if (bits > max) continue;
        int whole = bits / 8, rest = bits % 8;
        if (memcmp(addr, r + 2, (size_t)whole) != 0) continue;
        if (rest != 0) {
            unsigned char mask = (unsigned char)(0xFF << (8 - rest));
            if ((addr[whole] & mask) != (r[2 + whole] & mask)) continue;
        }
        return 1;
    }
    return 0;
}

/* An IPv6 address that reaches an IPv4 one is also checked as that IPv4 address: NAT64's
 * 64:ff9b::/96 (RFC 6052, the last 32 bits) and the local-use 64:ff9b:1::/48 (RFC 8215: its
 * operator picks the prefix length, so both the /48 position, bits 48-63 and 72-87 around the
 * u octet, and the /96 one), 6to4's 2002::/16 (bits 16-47), IPv4-compatible ::/96 (the last 32
 * bits; :: and ::1 as well, by their IPv6 rules). */
int ifc_address_denied(const unsigned char *rules, int count, int family, const unsigned char *addr) {
    if (in_rules(rules, count, family, addr)) return 1;
    if (family != 6) return 0;
    static const unsigned char nat64[12] = { 0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0 };
    static const unsigned char local64[6] = { 0, 0x64, 0xff, 0x9b, 0, 0x01 };
    static const unsigned char zero[12] = { 0 };
    unsigned char v4[4];
    if (memcmp(addr, nat64, 12) == 0 || memcmp(addr, zero, 12) == 0) return in_rules(rules, count, 4, addr + 12);
    if (memcmp(addr, local64, 6) == 0) {
        v4[0] = addr[6]; v4[1] = addr[7]; v4[2] = addr[9]; v4[3] = addr[10];
        return in_rules(rules, count, 4, v4) || in_rules(rules, count, 4, addr + 12);
    }
    if (addr[0] == 0x20 && addr[1] == 0x02) return in_rules(rules, count, 4, addr + 2);
    return 0;
}

curl_socket_t ifc_opensocket_cb(void *clientp, curlsocktype purpose, struct curl_sockaddr *a) {
    xfer *x = clientp;
    (void)purpose;
    unsigned char addr[16];
    int family = 0;
    if (a->family == AF_INET && a->addrlen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)&a->addr;
        memcpy(addr, &in->sin_addr, 4);
        family = 4;
    } else if (a->family == AF_INET6 && a->addrlen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)&a->addr;
        const unsigned char *b = in6->sin6_addr.s6_addr;
        static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF };
        if (memcmp(b, mapped, 12) == 0) {   /* ::ffff:a.b.c.d is a.b.c.d */
            memcpy(addr, b + 12, 4);
            family = 4;
        } else {
            memcpy(addr, b, 16);
            family = 6;
        }
    }
    /* An address of another family (a Unix socket) is not one of the guard's: refused too. */
    if (x->deny_count > 0 && (family == 0 || ifc_address_denied(x->deny, x->deny_count, family, addr))) {
        if (family == 0 || inet_ntop(family == 4 ? AF_INET : AF_INET6, addr, x->denied, sizeof x->denied) == NULL)
            snprintf(x->denied, sizeof x->denied, "an address of family %d", a->family);
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);   /* never inherited by a child */
}
