"""The simulated web's origins: origin N (1-based) lives at a 127.x.y.z address and has the profile
its number gives. Shared by the server (what an origin answers), the list maker (what a line asks
for) and the harness (what an origin allows)."""
import os

# Origin 0 is 127.0.0.1: the harness's control address (/__stats), never in a list.
PROFILES = [
    "healthy", "healthy", "healthy", "healthy", "healthy", "healthy", "healthy", "healthy",
    "blackhole",           # its URLs name the blackhole port, whose accept queue is kept full
    "slow_drip",           # 1 byte every 2 s
    "throttle_retry_after",  # 429 with Retry-After: 2 above ALLOWED_RATE requests/s
    "throttle_bare",       # 429 without Retry-After above ALLOWED_RATE requests/s
    "flapping",            # 503 (no Retry-After) in every other 2-second window
    "robots_disallow",     # robots.txt disallows /private/ (half its lines)
    "robots_5xx",          # robots.txt answers 503
    "opt_out",             # X-Robots-Tag / tdm-reservation / Content-Usage on its images
    "redirect",            # 302 to the image
    "healthy", "healthy", "healthy",
]

# A robots.txt answering 5xx is asked again once imgfetch's keeping of that answer ends (10 minutes,
# the man page's POLITENESS): such an origin may see one robots.txt request per 10 minutes.
UNAVAILABLE_KEPT = 600
ALLOWED_RATE = 2          # requests per second a throttling origin serves
DRIP_EVERY = 2.0          # seconds between the bytes of a slow drip
OPT_OUT_HEADERS = [
    ("X-Robots-Tag", "noai"),
    ("X-Robots-Tag", "noimageai"),
    ("X-Robots-Tag", "noml"),
    ("tdm-reservation", "1"),
    ("Content-Usage", "train-ai=n"),
]


def address(n):
    """Origin n (0 = control) as an IPv4 loopback address: 127.x.y.z, z in 1..250."""
    x, rest = divmod(n, 250 * 250)
    y, z = divmod(rest, 250)
    return "127.%d.%d.%d" % (x, y, z + 1)


def number(addr):
    parts = addr.split(".")
    if len(parts) != 4 or parts[0] != "127":
        return None
    x, y, z = int(parts[1]), int(parts[2]), int(parts[3])
    if not (1 <= z <= 250 and y < 250):
        return None
    return x * 250 * 250 + y * 250 + (z - 1)


# WEBSIM_PROFILES=healthy,... keeps those kinds only (healthy alone: a web on which neither side
# waits or hangs, so the figures are the two tools' steady rates).
if os.environ.get("WEBSIM_PROFILES"):
    PROFILES = [p for p in PROFILES if p in os.environ["WEBSIM_PROFILES"].split(",")] or PROFILES


def profile(n):
    return PROFILES[(n * 7919) % len(PROFILES)] if n > 0 else "control"
