// The Swift runtime defines what the header declares; this file only gives the target a source.
#include "CRuntimeRetain.h"
