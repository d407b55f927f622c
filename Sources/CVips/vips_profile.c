/* vips_profile.c: whether an image's embedded ICC profile can be used at all.
 *
 * An embedded profile that does not parse (Pillow's icc-after-SOF.jpg carries 7 bytes) makes
 * libvips 8.14's sRGB conversion fail, and it cannot be told to ignore the profile (its
 * import_profile is only a fallback, and its fallback, sRGB, does not fit a grey image). So the
 * profile is checked first: its header and tag table must lie within its bytes, lcms must open
 * it and its colour space must not need more channels than the image has. One that fails counts
 * as no profile: the picture is taken as sRGB (or grey) as it is, and the caller says so.
 */
#define _GNU_SOURCE
#include "vips_internal.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef unsigned long GType;

static GType (*r_get_typeof)(const VipsImage *image, const char *name);
static int (*r_get_blob)(VipsImage *image, const char *name, const void **data, size_t *length);
static int (*r_get_bands)(const VipsImage *image);
/* lcms2, which libvips links: optional (the structural check alone when it cannot be found). */
static void *(*r_cms_open)(const void *mem, uint32_t size);
static int (*r_cms_close)(void *profile);
static uint32_t (*r_cms_space)(void *profile);
static uint32_t (*r_cms_channels)(uint32_t space);

int ifv__profile_resolve(void *handle, char *err, size_t errlen) {
    IFV_RESOLVE(r_get_typeof, "vips_image_get_typeof");
    IFV_RESOLVE(r_get_blob, "vips_image_get_blob");
    IFV_RESOLVE(r_get_bands, "vips_image_get_bands");
    *(void **)(&r_cms_open) = dlsym(handle, "cmsOpenProfileFromMem");
    *(void **)(&r_cms_close) = dlsym(handle, "cmsCloseProfile");
    *(void **)(&r_cms_space) = dlsym(handle, "cmsGetColorSpace");
    *(void **)(&r_cms_channels) = dlsym(handle, "cmsChannelsOf");
    if (!r_cms_open || !r_cms_close || !r_cms_space || !r_cms_channels) r_cms_open = NULL;
    return 0;
}

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* NULL when `icc` (len bytes) is a profile lcms can use for an image of `bands` bands; else why not. */
static const char *ifv_profile_problem(const unsigned char *icc, size_t len, int bands, char *why, size_t whylen) {
    if (len < 132) {
        snprintf(why, whylen, "is %zu bytes, shorter than an ICC header and tag count (132)", len);
        return why;
    }
    uint32_t declared = be32(icc);
    if (declared < 132 || declared > len) {
        snprintf(why, whylen, "declares %u bytes but holds %zu", declared, len);
        return why;
    }
    if (memcmp(icc + 36, "acsp", 4) != 0) return "has no 'acsp' signature";
    uint64_t tags = be32(icc + 128);
    if (132 + tags * 12 > declared) return "has a tag table longer than the profile";
    for (uint64_t i = 0; i < tags; i++) {
        const unsigned char *t = icc + 132 + i * 12;
        if ((uint64_t)be32(t + 4) + be32(t + 8) > declared) return "has a tag outside the profile";
    }
    if (r_cms_open == NULL) return NULL;
    void *profile = r_cms_open(icc, declared);
    if (profile == NULL) return "does not open in lcms";
    uint32_t channels = r_cms_channels(r_cms_space(profile));
    r_cms_close(profile);
    if ((int)channels > bands) {
        snprintf(why, whylen, "is for %u channels, the image has %d", channels, bands);
        return why;
    }
    return NULL;
}

int ifv__profile_unusable(VipsImage *img, char *why, size_t whylen) {
    if (why != NULL && whylen > 0) why[0] = '\0';
    if (r_get_typeof(img, "icc-profile-data") == 0) return 0;
    const void *data = NULL;
    size_t len = 0;
    char buf[128];
    const char *problem = r_get_blob(img, "icc-profile-data", &data, &len) != 0 || data == NULL
        ? "cannot be read"
        : ifv_profile_problem(data, len, r_get_bands(img), buf, sizeof buf);
    if (problem == NULL) return 0;
    ifv__copy_msg(why, whylen, problem);
    return 1;
}
