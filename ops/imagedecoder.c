/* ops/imagedecoder.c: ImageDecoder, through Debian's image libraries. */
#include "core/registry.h"

const ox_kernel ox_imagedecoder_kernels[] = {
/*  domain  op                    since until      tin types           in     fn */
  { NULL, NULL, 0, 0, 0, 0, 0, 0, NULL },
};
