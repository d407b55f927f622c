/* curl_loader.c: libcurl is never linked. ifc_load() dlopen()s "libcurl.so.4" once and resolves
 * every function the engine uses into `cu` (the variadic ones through variadic function pointer
 * types, which is fine from C), then runs curl_global_init. A success or a lasting failure (no
 * such library, a missing symbol) is kept for the process; a failure for want of descriptors
 * (EMFILE, ENFILE: a busy moment of a large prefetch) is retried, a few times at once with short
 * pauses, then again by the next call. */
#define _GNU_SOURCE
#include "curl_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

struct ifc_curl_api cu;

static pthread_mutex_t load_mutex = PTHREAD_MUTEX_INITIALIZER;
static int load_status = -1;          /* 0 = loaded, 1 = failed for good, -1 = not yet (under load_mutex) */
static int load_transient;            /* the last attempt failed for want of descriptors */
static char load_error[512];
static void *libcurl_handle;

/* dlsym into a function pointer without the object/function pointer cast warning. */
static int resolve(void *lib, const char *name, void *slot, size_t slot_size) {
    dlerror();
    void *sym = dlsym(lib, name);
    if (sym == NULL) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "libcurl.so.4: missing symbol %s%s%s", name,
                 why ? ": " : "", why ? why : "");
        return -1;
    }
    memcpy(slot, &sym, slot_size);
    return 0;
}

static void load_libcurl(void) {
    load_transient = 0;
    errno = 0;
    void *lib = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);   /* symbols bound on first use, as curl(1) itself */
    if (lib == NULL) {
        int error = errno;
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libcurl.so.4: %s",
                 why ? why : "unknown error");
        load_transient = error == EMFILE || error == ENFILE
            || strstr(load_error, strerror(EMFILE)) != NULL || strstr(load_error, strerror(ENFILE)) != NULL;
        return;
    }
#define RESOLVE(field, name) \
    if (resolve(lib, name, &cu.field, sizeof cu.field) != 0) goto fail
    RESOLVE(global_init, "curl_global_init");
    RESOLVE(easy_init, "curl_easy_init");
    RESOLVE(easy_cleanup, "curl_easy_cleanup");
    RESOLVE(easy_setopt, "curl_easy_setopt");
    RESOLVE(easy_getinfo, "curl_easy_getinfo");
    RESOLVE(easy_strerror, "curl_easy_strerror");
    RESOLVE(multi_init, "curl_multi_init");
    RESOLVE(multi_add_handle, "curl_multi_add_handle");
    RESOLVE(multi_remove_handle, "curl_multi_remove_handle");
    RESOLVE(multi_perform, "curl_multi_perform");
    RESOLVE(multi_poll, "curl_multi_poll");
    RESOLVE(multi_wakeup, "curl_multi_wakeup");
    RESOLVE(multi_info_read, "curl_multi_info_read");
    RESOLVE(multi_setopt, "curl_multi_setopt");
    RESOLVE(multi_cleanup, "curl_multi_cleanup");
    RESOLVE(slist_append, "curl_slist_append");
    RESOLVE(slist_free_all, "curl_slist_free_all");
    RESOLVE(easy_pause, "curl_easy_pause");
    RESOLVE(share_init, "curl_share_init");
    RESOLVE(share_setopt, "curl_share_setopt");
    RESOLVE(share_cleanup, "curl_share_cleanup");
#undef RESOLVE
    {
        CURLcode rc = cu.global_init(CURL_GLOBAL_DEFAULT);
        if (rc != CURLE_OK) {
            snprintf(load_error, sizeof load_error, "curl_global_init failed: %s",
                     cu.easy_strerror(rc));
            goto fail;
        }
    }
    libcurl_handle = lib;   /* kept for the life of the process */
    load_status = 0;
    return;
fail:
    memset(&cu, 0, sizeof cu);
    dlclose(lib);
}

int ifc_load(char *err, size_t errlen) {
    pthread_mutex_lock(&load_mutex);
    for (int attempt = 0; load_status < 0; attempt++) {
        load_libcurl();
        if (load_status == 0) break;
        if (!load_transient) { load_status = 1; break; }
        if (attempt == 3) break;   /* left at -1: the next call tries again */
        struct timespec pause = { 0, 10000000L << attempt };   /* 10, 20, 40 ms */
        nanosleep(&pause, NULL);
    }
    int status = load_status;
    if (status != 0 && err != NULL && errlen > 0) snprintf(err, errlen, "%s", load_error);
    pthread_mutex_unlock(&load_mutex);
    return status == 0 ? 0 : -1;
}

int ifc_version(char *version, size_t version_len, char *ssl, size_t ssl_len, int *http2, int *http3,
                char *err, size_t errlen) {
    *http2 = 0;
    *http3 = 0;
    if (version_len > 0) version[0] = '\0';
    if (ssl_len > 0) ssl[0] = '\0';
    if (ifc_load(err, errlen) != 0) return -1;
    curl_version_info_data *(*version_info)(CURLversion) = NULL;
    void *sym = dlsym(libcurl_handle, "curl_version_info");
    memcpy(&version_info, &sym, sizeof version_info);
    const curl_version_info_data *data = version_info != NULL ? version_info(CURLVERSION_NOW) : NULL;
    if (data == NULL) {
        if (err != NULL && errlen > 0) snprintf(err, errlen, "libcurl.so.4: no curl_version_info");
        return -1;
    }
    snprintf(version, version_len, "%s", data->version ? data->version : "?");
    snprintf(ssl, ssl_len, "%s", data->ssl_version ? data->ssl_version : "");
    *http2 = (data->features & CURL_VERSION_HTTP2) != 0;
    *http3 = (data->features & CURL_VERSION_HTTP3) != 0;
    return 0;
}
