/* opt_num: a number that may be unknown. Shared by the formats (the reference's None is
 * has == false) and by the store's rows (a NULL column), so "not measured" is never 0. */
#ifndef GOBLIN_OPT_NUM_H
#define GOBLIN_OPT_NUM_H

#include <stdbool.h>

/* An optional number: has == false means unknown (None / NULL); v is meaningless then. */
typedef struct opt_num {
    bool has;
    double v;
} opt_num;

#endif
