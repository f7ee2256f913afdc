package sign

// schnorrSign makes a BIP 340 signature with the signer's hash type for the
// PSBT signer, through the same path as every other signature of the
// package (verification and signature cache included); false when the
// signature did not verify and was refused.
func schnorrSign(s *inputSigner, sk *schnorrKey, hash, pub []byte) ([]byte, bool) {
	return s.schnorrSig(sk, hash, pub)
}
