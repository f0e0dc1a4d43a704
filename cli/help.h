/* help.h — `kreport help TOPIC`: the documentation of docs/, embedded at
 * build time (scripts/embed.cmake), so the docs, the help and the topics
 * reports cite are one text. */
#ifndef KR_CLI_HELP_H
#define KR_CLI_HELP_H

#include <stddef.h>
#include <stdio.h>

/* docs/<topic>.md (NUL-terminated), or NULL when there is no such topic.
 * docs/README.md, the index, is not a topic. */
const char *cli_doc(const char *topic, size_t *len);

/* Number of topics, and the name of the i-th in file-name order ("formats"). */
size_t cli_doc_count(void);
const char *cli_doc_name(size_t i, char *buf, size_t cap);

/* Prints the topic names, a few to a line. */
void cli_doc_list(FILE *out);

#endif
