/* vips_internal.h: shared between the files of the libvips shim (not part of the module's API). */
#ifndef VIPS_INTERNAL_H
#define VIPS_INTERNAL_H

/* Called inside ifv_load, after dlopen and before vips_init: when $VIPSHOME is the directory given
 * to ifv_set_module_home, link the heif and jxl modules of the libvips containing `vips_symbol`
 * (version major.minor) into it. */
void ifv_prepare_module_home(void *vips_symbol, int major, int minor);

#endif
