/* SPDX-License-Identifier: MIT */
/* One message of every wire type with every field set, for round trips and fuzz seeds. */
#ifndef SW_WIRE_SAMPLES_H
#define SW_WIRE_SAMPLES_H

#include "sw_wire.h"

/* The sample of type (SW_WIRE_HELLO .. SW_WIRE_TYPES-1), in static storage. */
const ProtobufCMessage *wire_sample(enum sw_wire_type type);

#endif
