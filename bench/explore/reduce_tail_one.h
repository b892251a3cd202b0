/* One instance of a reduction template for bench/explore/reduce_tail.cu: TEMPLATE included in
   namespace NS with its kernel renamed by the macro reduction, under BLOCK, EPT, VEC, GRID
   (METHOD, SPLIT, BANK_BYTES stay); then this instance's macros undefined for the next. */
namespace NS {
#include TEMPLATE
}
#undef NS
#undef reduction
#undef BLOCK
#undef EPT
#undef VEC
#undef GRID
#undef PIPE
#undef TILE_ELEMS
#undef FULL
#undef GROUP
