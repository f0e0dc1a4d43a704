/* isa.h — mnemonic and instruction class of a code row (docs/instruction-classes.md). */
#ifndef KR_BUNDLE_ISA_H
#define KR_BUNDLE_ISA_H

#include <stddef.h>

#include "bundle/model.h"

/* Lower-cased ISA text up to the first space (or tab) into buf. */
void bundle_mnemonic(const char *isa, char *buf, size_t cap);
/* Class of a mnemonic (docs/instruction-classes.md rules 1-16, first match wins). */
kr_class bundle_classify(const char *mnemonic);
/* 1 if trace category cat is allowed for class cls (docs/instruction-classes.md compatibility table). */
int bundle_class_allows_cat(kr_class cls, unsigned cat);

#endif
