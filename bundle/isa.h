/* isa.h — mnemonic and instruction class of a code row (FORMATS.md §8.1). */
#ifndef KR_BUNDLE_ISA_H
#define KR_BUNDLE_ISA_H

#include <stddef.h>

#include "bundle/model.h"

/* Lower-cased ISA text up to the first space (or tab) into buf. */
void bundle_mnemonic(const char *isa, char *buf, size_t cap);
/* Class of a mnemonic (§8.1 rules 1-16, first match wins). */
kr_class bundle_classify(const char *mnemonic);
/* 1 if trace category cat is allowed for class cls (§8.1 compatibility table). */
int bundle_class_allows_cat(kr_class cls, unsigned cat);

#endif
