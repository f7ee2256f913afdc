//go:build !amd64

package chain

// haveSipLanes tells whether sipLanes runs on this processor: never off
// amd64.
const haveSipLanes = false

// sipLanes is only implemented on amd64.
func sipLanes(k *sipKey, words *uint64, n int, out *[lanes]uint64) {
	panic("chain: sipLanes without an implementation")
}
