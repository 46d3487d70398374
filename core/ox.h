/* core/ox.h: everything of core/ in one include. */
#ifndef OX_H
#define OX_H
#include "dtype.h"
#include "err.h"
#include "arena.h"
#include "value.h"
#include "graph.h"
#include "registry.h"
#include "eval.h"
#include "sys.h"
#define OX_VERSION "0.2.0"
#endif
