#include "cvips.h"
