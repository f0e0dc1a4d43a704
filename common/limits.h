/* limits.h — every input limit kreport enforces, in one place.
 *
 * Each limit is checked where the input is read, and the error names the
 * limit (e.g. "exceeds KR_MAX_FILE_BYTES (4 GiB)"). Limits bound memory and
 * time for hostile input; real captures are far below them. */
#ifndef KR_COMMON_LIMITS_H
#define KR_COMMON_LIMITS_H

/* Largest single input file read into memory (wave files reach hundreds of MB). */
#define KR_MAX_FILE_BYTES        (4ull << 30)
/* Largest small JSON/CSV file parsed through jansson or the CSV reader. */
#define KR_MAX_SMALL_FILE_BYTES  (512ull << 20)
/* JSON nesting depth accepted by the scanner (files need about 6). */
#define KR_MAX_JSON_DEPTH        64
/* Longest string value (ISA text, source chains, file names). */
#define KR_MAX_STRING_BYTES      (64u << 10)
/* Code rows in one code.json, and the largest LineNumber accepted. */
#define KR_MAX_CODE_ROWS         (8u << 20)
#define KR_MAX_LINE_NUMBER       (16u << 20)
/* Wave files listed in one filenames.json. */
#define KR_MAX_WAVES             (1u << 20)
/* Instruction records, timeline entries and waitcnt entries per wave. */
#define KR_MAX_RECORDS_PER_WAVE  (1u << 28)
/* Occupancy rows per SE, realtime samples per SE, SEs per capture. */
#define KR_MAX_OCC_ROWS          (1u << 28)
#define KR_MAX_SE                64
/* CSV: fields per row and rows per file. */
#define KR_MAX_CSV_FIELDS        4096
#define KR_MAX_CSV_ROWS          (16u << 20)
/* rocpd databases (bundle/load_rocpd.h): rows read from one table (a
 * dispatch, agent, symbol, counter value ...); SQLite virtual-machine
 * steps for the whole load (reading a million dispatches takes about 10^8);
 * SQLite's heap (its page cache and statements; a database read from an
 * archive is held in kreport's own buffer besides). */
#define KR_MAX_ROCPD_ROWS        (16u << 20)
#define KR_MAX_ROCPD_STEPS       (4ull << 30)
#define KR_MAX_ROCPD_HEAP        (256ll << 20)
/* Source snapshot copies: bytes per copy. */
#define KR_MAX_SNAPSHOT_BYTES    (64ull << 20)

/* Archives read as input (bundle/archive.h), decompressed into memory:
 * members per archive (a capture has one file per wave, KR_MAX_WAVES, plus
 * a few dozen others); bytes of all members together (the whole input is
 * held in memory); the ratio of those bytes to the archive's size, checked
 * once the total passes KR_ARCHIVE_RATIO_FLOOR (JSON traces compress 5-30x
 * with zstd; a decompression bomb reaches 1000x and more); the length of a
 * member path (captures use names under 100 bytes). */
#define KR_MAX_ARCHIVE_MEMBERS   ((1u << 20) + 4096u)
#define KR_MAX_ARCHIVE_BYTES     (16ull << 30)
#define KR_MAX_ARCHIVE_RATIO     200u
#define KR_ARCHIVE_RATIO_FLOOR   (64ull << 20)
#define KR_MAX_ARCHIVE_PATH      1024u

#endif
