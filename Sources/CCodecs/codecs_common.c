/* codecs_common.c: what every file of the module shares (see codecs_internal.h). */
#include "codecs_internal.h"

#include <stdio.h>
#include <stdlib.h>

int ifc__fail(char *msg, size_t msglen, const char *what) {
    if (msg != NULL && msglen > 0) snprintf(msg, msglen, "%s", what);
    return IFC_FAILED;
}

void ifc_free(void *p) { free(p); }
