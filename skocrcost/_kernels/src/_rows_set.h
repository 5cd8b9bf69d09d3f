/* Included by _rows.h with SKC_ATTR, SKC_MIN, SKC_SELECT, SKC_SHARE and SKC_SET(nv) (the
 * name of an instance) defined: the rows kernel (_rows_body.h) for 1, 2, 3, 4 and 8
 * vectors of 4 lanes per column.
 * More vectors, fewer strings in flight, so that their columns stay in registers. */
#define SKC_NAME SKC_SET(1)
#define SKC_NV 1
#define SKC_S 8
#include "_rows_body.h"
#undef SKC_NAME
#undef SKC_NV
#undef SKC_S
#define SKC_NAME SKC_SET(2)
#define SKC_NV 2
#define SKC_S 4
#include "_rows_body.h"
#undef SKC_NAME
#undef SKC_NV
#undef SKC_S
#define SKC_NAME SKC_SET(3)
#define SKC_NV 3
#define SKC_S 3
#include "_rows_body.h"
#undef SKC_NAME
#undef SKC_NV
#undef SKC_S
#define SKC_NAME SKC_SET(4)
#define SKC_NV 4
#define SKC_S 3
#include "_rows_body.h"
#undef SKC_NAME
#undef SKC_NV
#undef SKC_S
#define SKC_NAME SKC_SET(8)
#define SKC_NV 8
#define SKC_S 1
#include "_rows_body.h"
#undef SKC_NAME
#undef SKC_NV
#undef SKC_S
