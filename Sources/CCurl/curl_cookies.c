/* curl_cookies.c: the run's one cookie engine (ifc_engine_use_cookies, ifc_engine_cookie_list):
 * a libcurl share of CURL_LOCK_DATA_COOKIE, locked by the engine's cookie_lock, used by the loop
 * thread's transfers (curl_transfer.c sets CURLOPT_SHARE) and read on any thread for the jar. */
#define _GNU_SOURCE
#include "curl_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void cookie_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *userptr) {
    (void)handle; (void)data; (void)access;
    pthread_mutex_lock(userptr);
}

static void cookie_unlock(CURL *handle, curl_lock_data data, void *userptr) {
    (void)handle; (void)data;
    pthread_mutex_unlock(userptr);
}

int ifc_engine_use_cookies(ifc_engine *e, const char *lines) {
    if (e == NULL || e->share != NULL) return -1;
    if (pthread_mutex_init(&e->cookie_lock, NULL) != 0) return -1;
    CURLSH *share = cu.share_init();
    if (share == NULL ||
        cu.share_setopt(share, CURLSHOPT_LOCKFUNC, cookie_lock) != CURLSHE_OK ||
        cu.share_setopt(share, CURLSHOPT_UNLOCKFUNC, cookie_unlock) != CURLSHE_OK ||
        cu.share_setopt(share, CURLSHOPT_USERDATA, (void *)&e->cookie_lock) != CURLSHE_OK ||
        cu.share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE) != CURLSHE_OK) {
        if (share != NULL) cu.share_cleanup(share);
        pthread_mutex_destroy(&e->cookie_lock);
        return -1;
    }
    e->share = share;
    if (lines == NULL || lines[0] == '\0') return 0;
    /* A handle that never transfers puts each line into the share (CURLOPT_COOKIELIST takes a
     * Netscape cookie-file line as it takes a Set-Cookie header). */
    CURL *h = cu.easy_init();
    char *copy = strdup(lines);
    int rc = h != NULL && copy != NULL && cu.easy_setopt(h, CURLOPT_SHARE, share) == CURLE_OK ? 0 : -1;
    for (char *line = copy; rc == 0 && line != NULL && *line != '\0';) {
        char *end = strchr(line, '\n');
        if (end != NULL) *end = '\0';
        if (*line != '\0') cu.easy_setopt(h, CURLOPT_COOKIELIST, line);
        line = end != NULL ? end + 1 : NULL;
    }
    free(copy);
    if (h != NULL) cu.easy_cleanup(h);
    return rc;
}

char *ifc_engine_cookie_list(ifc_engine *e) {
    if (e == NULL || e->share == NULL) return NULL;
    CURL *h = cu.easy_init();
    if (h == NULL) return NULL;
    struct curl_slist *list = NULL;
    char *out = NULL;
    if (cu.easy_setopt(h, CURLOPT_SHARE, e->share) == CURLE_OK &&
        cu.easy_getinfo(h, CURLINFO_COOKIELIST, &list) == CURLE_OK) {
        size_t n = 1;
        for (struct curl_slist *l = list; l != NULL; l = l->next) n += strlen(l->data) + 1;
        out = malloc(n);
        if (out != NULL) {
            size_t at = 0;
            for (struct curl_slist *l = list; l != NULL; l = l->next) {
                size_t len = strlen(l->data);
                memcpy(out + at, l->data, len);
                at += len;
                out[at++] = '\n';
            }
            out[at] = '\0';
        }
    }
    if (list != NULL) cu.slist_free_all(list);
    cu.easy_cleanup(h);
    return out;
}
