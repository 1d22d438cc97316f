#ifndef SBX_PLAN_H
#define SBX_PLAN_H
#endif
