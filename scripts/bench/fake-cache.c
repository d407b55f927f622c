/* fake-cache.c -- fake-cache.py in C, for caches of a million entries (the same layout, keys and
 * metadata; ~10x faster: one buffer per file, no interpreter).
 *   cc -O2 -o fake-cache scripts/bench/fake-cache.c
 *   fake-cache DIR N [IMAGE CHECKSUM WIDTH HEIGHT]
 * Keys are derived from i with splitmix64 (not sha256 as in fake-cache.py: the keys differ, the
 * layout does not). With IMAGE (a real entry's image file, with its XXH64 CHECKSUM and dimensions),
 * every entry gets those bytes, so `cache verify` passes; without, a few fake bytes.
 * Writes DIR/CACHEDIR.TAG and, last, DIR/STAMP ("fake-cache v1 n=N ..."). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void put(const char *path, const void *bytes, size_t n) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, bytes, n) != (ssize_t)n) { perror(path); exit(1); }
    close(fd);
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 7) {
        fprintf(stderr, "usage: fake-cache DIR N [IMAGE CHECKSUM WIDTH HEIGHT]\n");
        return 2;
    }
    const char *root = argv[1];
    long n = atol(argv[2]);
    static char image[1 << 20];
    size_t image_len = 15;
    const char *checksum = "xxh64:0000000000000000";
    int width = 64, height = 48;
    memcpy(image, "\xff\xd8\xff\xe0" "fake-jpeg\xff\xd9", 15);
    if (argc == 7) {
        FILE *f = fopen(argv[3], "rb");
        if (!f) { perror(argv[3]); return 1; }
        image_len = fread(image, 1, sizeof image, f);
        fclose(f);
        checksum = argv[4]; width = atoi(argv[5]); height = atoi(argv[6]);
    }
    char path[4096], meta[2048];
    snprintf(path, sizeof path, "%s", root); mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/v1", root); mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/v1/tmp", root); mkdir(path, 0755);
    for (int s = 0; s < 256; s++) { snprintf(path, sizeof path, "%s/v1/%02x", root, s); mkdir(path, 0755); }
    const char *tag = "Signature: 8a477f597d28d172789f06886806bc55\n"
                      "# This file is a cache directory tag created by imgfetch (a generated benchmark cache).\n";
    snprintf(path, sizeof path, "%s/CACHEDIR.TAG", root); put(path, tag, strlen(tag));
    double now = (double)time(NULL);
    for (long i = 0; i < n; i++) {
        uint64_t seed = (uint64_t)i * 4 + 0x5eed;
        char key[65];
        for (int w = 0; w < 4; w++) snprintf(key + 16 * w, 17, "%016llx", (unsigned long long)splitmix(&seed));
        char url[128];
        snprintf(url, sizeof url, "http://127.0.0.1:1/fake/%06ld/photo-%ld.jpg", i / 1000, i);
        double created = now - (double)((uint64_t)i * 2654435761ULL % (30 * 86400)) - (double)(i % 1000) / 1000.0;
        const char *variant = i % 3 == 0 ? "original" : "w320-h320-inside-original-q80";
        int len = snprintf(meta, sizeof meta,
            "imgfetch-meta 1\nkey\t%s\nidentity\t%s\nsource\t%s\nvariant\t%s\nformat\tjpeg\n"
            "width\t%d\nheight\t%d\nbytes\t%zu\nchecksum\t%s\ncreated\t%.3f\nexpires\t%.3f\n"
            "etag\t\"%08lx-%zx\"\nend\n",
            key, url, url, variant, width, height, image_len, checksum, created, created + 30 * 86400, i, image_len);
        snprintf(path, sizeof path, "%s/v1/%.2s/%s.jpg", root, key, key);
        put(path, image, image_len);
        snprintf(path, sizeof path, "%s/v1/%.2s/%s.meta", root, key, key);
        put(path, meta, (size_t)len);
    }
    snprintf(path, sizeof path, "%s/STAMP", root);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); return 1; }
    fprintf(f, "fake-cache v1 n=%ld template=%s generator=c\n", n, argc == 7 ? "yes" : "no");
    fclose(f);
    return 0;
}
