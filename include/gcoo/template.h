/* SPDX-License-Identifier: MIT */
/* gcoo/template.h: instantiate the C template named by GCOO_TEMPLATE for float and double.
 * Inside the template, GCOO_T is the element type, GCOO_DT its gcoo_dtype and GCOO_FN(name)
 * gives name_f32 / name_f64. Include this file after defining GCOO_TEMPLATE (a string). */
#ifndef GCOO_TEMPLATE
#error "define GCOO_TEMPLATE before including gcoo/template.h"
#endif

#define GCOO_T float
#define GCOO_DT GCOO_FLOAT32
#define GCOO_FN(name) GCOO_FN2_(name, f32)
#include GCOO_TEMPLATE
#undef GCOO_T
#undef GCOO_DT
#undef GCOO_FN

#define GCOO_T double
#define GCOO_DT GCOO_FLOAT64
#define GCOO_FN(name) GCOO_FN2_(name, f64)
#include GCOO_TEMPLATE
#undef GCOO_T
#undef GCOO_DT
#undef GCOO_FN

#undef GCOO_TEMPLATE
