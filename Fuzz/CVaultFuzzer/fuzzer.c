// CVaultFuzzer declares libFuzzer's driver (include/CVaultFuzzer.h); nothing to define here.
#include "CVaultFuzzer.h"
