#include "textflag.h"

// Byte shuffle rotating each 64-bit lane left by 16 bits.
DATA rot16<>+0x00(SB)/8, $0x0504030201000706
DATA rot16<>+0x08(SB)/8, $0x0d0c0b0a09080f0e
DATA rot16<>+0x10(SB)/8, $0x0504030201000706
DATA rot16<>+0x18(SB)/8, $0x0d0c0b0a09080f0e
GLOBL rot16<>(SB), RODATA|NOPTR, $32

// ROUND is one SipRound on four lanes: state a0..a3, t scratch, Y15 the
// rot16 shuffle. A shift pair and an OR make each rotation AVX2 lacks.
#define ROUND(a0, a1, a2, a3, t) \
	VPADDQ a1, a0, a0; \
	VPSLLQ $13, a1, t; VPSRLQ $51, a1, a1; VPOR t, a1, a1; \
	VPXOR a0, a1, a1; \
	VPSHUFD $0xb1, a0, a0; \
	VPADDQ a3, a2, a2; \
	VPSHUFB Y15, a3, a3; \
	VPXOR a2, a3, a3; \
	VPADDQ a3, a0, a0; \
	VPSLLQ $21, a3, t; VPSRLQ $43, a3, a3; VPOR t, a3, a3; \
	VPXOR a0, a3, a3; \
	VPADDQ a1, a2, a2; \
	VPSLLQ $17, a1, t; VPSRLQ $47, a1, a1; VPOR t, a1, a1; \
	VPXOR a2, a1, a1; \
	VPSHUFD $0xb1, a2, a2

// ROUND3 is one SipRound on twelve lanes: Y0..Y3, Y4..Y7 and Y8..Y11.
#define ROUND3 \
	ROUND(Y0, Y1, Y2, Y3, Y12); \
	ROUND(Y4, Y5, Y6, Y7, Y13); \
	ROUND(Y8, Y9, Y10, Y11, Y14)

// func sipLanes(k *sipKey, words *uint64, n int, out *[12]uint64)
TEXT ·sipLanes(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), AX
	MOVQ words+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ out+24(FP), DI
	VPBROADCASTQ 0(AX), Y0
	VPBROADCASTQ 8(AX), Y1
	VPBROADCASTQ 16(AX), Y2
	VPBROADCASTQ 24(AX), Y3
	VMOVDQU Y0, Y4
	VMOVDQU Y1, Y5
	VMOVDQU Y2, Y6
	VMOVDQU Y3, Y7
	VMOVDQU Y0, Y8
	VMOVDQU Y1, Y9
	VMOVDQU Y2, Y10
	VMOVDQU Y3, Y11
	VMOVDQU rot16<>(SB), Y15

loop:
	VPXOR (SI), Y3, Y3
	VPXOR 32(SI), Y7, Y7
	VPXOR 64(SI), Y11, Y11
	ROUND3
	ROUND3
	VPXOR (SI), Y0, Y0
	VPXOR 32(SI), Y4, Y4
	VPXOR 64(SI), Y8, Y8
	ADDQ $96, SI
	DECQ CX
	JNZ loop

	MOVQ $0xff, BX
	MOVQ BX, X12
	VPBROADCASTQ X12, Y12
	VPXOR Y12, Y2, Y2
	VPXOR Y12, Y6, Y6
	VPXOR Y12, Y10, Y10
	ROUND3
	ROUND3
	ROUND3
	ROUND3
	VPXOR Y1, Y0, Y0
	VPXOR Y3, Y2, Y2
	VPXOR Y2, Y0, Y0
	VPXOR Y5, Y4, Y4
	VPXOR Y7, Y6, Y6
	VPXOR Y6, Y4, Y4
	VPXOR Y9, Y8, Y8
	VPXOR Y11, Y10, Y10
	VPXOR Y10, Y8, Y8
	VMOVDQU Y0, (DI)
	VMOVDQU Y4, 32(DI)
	VMOVDQU Y8, 64(DI)
	VZEROUPPER
	RET
