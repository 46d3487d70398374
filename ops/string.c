/* ops/string.c: StringNormalizer, StringConcat, StringSplit, RegexFullMatch and TfIdfVectorizer. */
#include "core/registry.h"

const ox_kernel ox_string_kernels[] = {
/*  domain  op                    since until      tin types           in     fn */
  { NULL, NULL, 0, 0, 0, 0, 0, 0, NULL },
};
