#!/usr/bin/env bash
# make test's XCTest run in two processes at once (2 cores): group A is the test classes listed below,
# group B every other class, so a class no one lists still runs (in B). Each process runs its classes
# one after another, as a single `swift test` would, and starts its own test servers per test (on
# ports the kernel picks). Every class that uses machine-wide state (dpkg and the installed package,
# the .deb in the working tree: PackageTests) is in A, so none of it runs twice at once.
# The groups are balanced by the class times of a whole run (the "Test Suite 'X' passed ... in N
# seconds" lines of .build/test-groups/*.log): A holds the end-to-end classes up to L, PackageTests
# and four more; B the unit tests and the other end-to-end classes: 274 s and 314 s on 2 quiet cores.
#
# Usage: IMGFETCH_E2E_BINARY=... scripts/test-groups.sh [SWIFT]
# Each group's output goes to .build/test-groups/{a,b}.log while it runs; at the end both are printed,
# A then B, then one closing line of both: "N passed, M failed" (after "S skipped" when some were).
# Exits non-zero if either group failed.
set -u
cd "$(dirname "$0")/.."
SWIFT=${1:-swift}

GROUP_A=(
  AddressGuardTests ArgumentSecretsTests AutoFormatTests CNetExchangeTests CacheCommandTests
  CacheDirectoryTests CacheEvictionTests CacheFilterTests CacheGalleryTests CacheKeyPrefixTests
  CacheLimitKeepsTests CacheListStreamingTests CachePruneDryRunTests CachePullHostileStoreTests
  CachePushPullTests CacheSafetyTests CacheScriptTests CacheSharedLimitTests CacheSheetTests
  CacheSpellingTests CacheTamperingTests CacheTests CacheTrustTests CauseMessagesTests
  CompletionTests ConfigFileTests CookieJarTests CoverIntermediateTests CredentialTests
  DamagedMetadataTests DecodePathTests DemoTests DescriptorLimitTests DocumentationTests
  FailureCauseTests FailureMemoryTests FailureTests FeedbackTests FeedbackTimingTests FidelityTests
  FormatTests HTTP2Tests HTTPCacheRulesTests HelpAndMessageTests HostDownTests HostileValueTests
  InterruptResumeTests JSONRecordTests KeptOriginalsNoteTests LimitTests LowDataTests PackageTests
  ProgressBarTests RecoveryTests RemoteStoreS3Tests RemoteTierS3Tests
)
filter="^EndToEndTests\\.($(IFS='|'; echo "${GROUP_A[*]}"))(/|$)"

logs=.build/test-groups
mkdir -p "$logs"
run() {  # NAME ARGS...: one group; SwiftPM's lock on .build is for builds (--skip-build: none here)
  local name=$1; shift
  "$SWIFT" test --skip-build --ignore-lock --disable-swift-testing "$@" > "$logs/$name.log" 2>&1
}
run a --filter "$filter" & a=$!
run b --skip "$filter" & b=$!
wait "$a"; status_a=$?
wait "$b"; status_b=$?

cat "$logs/a.log" "$logs/b.log"
# A group's whole run is the "Executed N tests, with [S tests skipped and] M failures" line under
# its top suite ("All tests", or "Selected tests" when filtered); a group that stopped without one
# (a crash) counts as one failure more.
python3 - "$logs/a.log" "$logs/b.log" "$status_a" "$status_b" <<'EOF'
import re, sys
top = re.compile(r"Test Suite '(?:All|Selected) tests' (?:passed|failed) at .*\n\s*"
                 r"Executed (\d+) tests?, with (?:(\d+) tests? skipped and )?(\d+) failures?")
passed = failed = skipped = 0
for group, log, status in zip("AB", sys.argv[1:3], sys.argv[3:5]):
    summary = top.findall(open(log, errors="replace").read())
    if not summary:
        print("make test: group %s (%s) stopped without its summary, exit status %s" % (group, log, status),
              file=sys.stderr)
        failed += 1
        continue
    n, s, m = (int(x or 0) for x in summary[-1])
    passed += n - s - m; skipped += s; failed += m
    if status != "0" and m == 0:
        print("make test: group %s (%s) exited %s" % (group, log, status), file=sys.stderr)
        failed += 1
if skipped:
    print("%d skipped" % skipped)
print("%d passed, %d failed" % (passed, failed))
EOF
[ "$status_a" -eq 0 ] && [ "$status_b" -eq 0 ]
