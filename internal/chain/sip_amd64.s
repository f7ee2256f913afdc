#include "textflag.h"

// Byte shuffle rotating each 64-bit lane left by 16 bits.
DATA rot16<>+0x00(SB)/8, $0x0504030201000706
DATA rot16<>+0x08(SB)/8, $0x0d0c0b0a09080f0e
DATA rot16<>+0x10(SB)/8, $0x0504030201000706
DATA rot16<>+0x18(SB)/8, $0x0d0c0b0a09080f0e
GLOBL rot16<>(SB), RODATA|NOPTR, $32

// The constant SipHash folds into v2 before its last rounds.
DATA final<>+0x00(SB)/8, $0xff
GLOBL final<>(SB), RODATA|NOPTR, $8

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

// SROUND is one SipRound on a scalar lane: state a..d in registers.
#define SROUND(a, b, c, d) \
	ADDQ b, a; ROLQ $13, b; XORQ a, b; ROLQ $32, a; \
	ADDQ d, c; ROLQ $16, d; XORQ c, d; \
	ADDQ d, a; ROLQ $21, d; XORQ a, d; \
	ADDQ b, c; ROLQ $17, b; XORQ c, b; ROLQ $32, c

// ROUNDS is one SipRound on all fifteen lanes: twelve in vector registers
// (Y0..Y3, Y4..Y7, Y8..Y11) and three in general registers (R8..R11,
// R12..R15, AX BX DX DI), which run on execution units the vector code
// leaves idle.
#define ROUNDS \
	ROUND(Y0, Y1, Y2, Y3, Y12); \
	SROUND(R8, R9, R10, R11); \
	ROUND(Y4, Y5, Y6, Y7, Y13); \
	SROUND(R12, R13, R14, R15); \
	ROUND(Y8, Y9, Y10, Y11, Y14); \
	SROUND(AX, BX, DX, DI)

// func sipLanes(k *sipKey, words *uint64, n int, out *[15]uint64)
TEXT ·sipLanes(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), AX
	MOVQ words+8(FP), SI
	MOVQ n+16(FP), CX
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
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ R8, R12
	MOVQ R9, R13
	MOVQ R10, R14
	MOVQ R11, R15
	MOVQ R11, DI
	MOVQ R10, DX
	MOVQ R9, BX
	MOVQ R8, AX
	VMOVDQU rot16<>(SB), Y15

loop:
	VPXOR (SI), Y3, Y3
	VPXOR 32(SI), Y7, Y7
	VPXOR 64(SI), Y11, Y11
	XORQ 96(SI), R11
	XORQ 104(SI), R15
	XORQ 112(SI), DI
	ROUNDS
	ROUNDS
	VPXOR (SI), Y0, Y0
	VPXOR 32(SI), Y4, Y4
	VPXOR 64(SI), Y8, Y8
	XORQ 96(SI), R8
	XORQ 104(SI), R12
	XORQ 112(SI), AX
	ADDQ $120, SI
	DECQ CX
	JNZ loop

	VPBROADCASTQ final<>(SB), Y12
	VPXOR Y12, Y2, Y2
	VPXOR Y12, Y6, Y6
	VPXOR Y12, Y10, Y10
	XORQ $0xff, R10
	XORQ $0xff, R14
	XORQ $0xff, DX
	ROUNDS
	ROUNDS
	ROUNDS
	ROUNDS
	VPXOR Y1, Y0, Y0
	VPXOR Y3, Y2, Y2
	VPXOR Y2, Y0, Y0
	VPXOR Y5, Y4, Y4
	VPXOR Y7, Y6, Y6
	VPXOR Y6, Y4, Y4
	VPXOR Y9, Y8, Y8
	VPXOR Y11, Y10, Y10
	VPXOR Y10, Y8, Y8
	XORQ R9, R8
	XORQ R11, R10
	XORQ R10, R8
	XORQ R13, R12
	XORQ R15, R14
	XORQ R14, R12
	XORQ BX, AX
	XORQ DI, DX
	XORQ DX, AX
	MOVQ out+24(FP), DI
	VMOVDQU Y0, (DI)
	VMOVDQU Y4, 32(DI)
	VMOVDQU Y8, 64(DI)
	MOVQ R8, 96(DI)
	MOVQ R12, 104(DI)
	MOVQ AX, 112(DI)
	VZEROUPPER
	RET
