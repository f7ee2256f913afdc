package descriptor

// derive computes the aggregate key of the participants at pos and, with a
// derivation path, the child of its synthetic xpub.
func (k *musigKey) derive(pos uint32, e *env, out *collector) ([]byte, error) {
	return nil, makeError(ErrNoMuSig, "musig() key aggregation is not available")
}
