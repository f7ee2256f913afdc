package wallet

import (
	"fmt"
	"strconv"
	"strings"
)

// Core's wallet defaults (src/wallet/wallet.h), amounts in satoshis, fee
// rates in satoshis per 1000 virtual bytes.
const (
	DefaultFallbackFee        = 0
	DefaultDiscardFee         = 10000
	DefaultMinTxFee           = 1000
	DefaultPayTxFee           = 0
	DefaultConsolidateFeeRate = 10000
	DefaultMaxAPSFee          = 0
	DefaultTxConfirmTarget    = 6
	DefaultWalletRBF          = true
	DefaultSpendZeroConf      = true
	DefaultWalletBroadcast    = true
	DefaultAvoidPartialSpends = false
	// DefaultMinRelayFee is Core's -minrelaytxfee default, the relay
	// floor the wallet's own fee options are checked against.
	DefaultMinRelayFee = 1000
	// WalletIncrementalRelayFee is Core's WALLET_INCREMENTAL_RELAY_FEE.
	WalletIncrementalRelayFee = 5000

	coin            = 100_000_000
	highTxFeePerKB  = coin / 100
	highMaxTxFee    = 100 * highTxFeePerKB
	highAPSFee      = coin / 10000
	maxMoney        = 21_000_000 * coin
	maxConfirmation = 1008
)

// Options are the node's wallet options (Core's -walletrbf,
// -txconfirmtarget, -spendzeroconfchange, -walletbroadcast,
// -avoidpartialspends, -maxapsfee, -discardfee, -fallbackfee, -mintxfee,
// -paytxfee, -maxtxfee, -consolidatefeerate, -deprecatedrpc), which the
// spending calls read. Fee rates are in satoshis per 1000 virtual bytes,
// amounts in satoshis.
type Options struct {
	WalletRBF           bool
	TxConfirmTarget     int
	SpendZeroConfChange bool
	WalletBroadcast     bool
	AvoidPartialSpends  bool
	// MaxAPSFee is -1 (partial spend avoidance off) or the extra fee
	// allowed for it.
	MaxAPSFee          int64
	DiscardFee         int64
	FallbackFee        int64
	MinTxFee           int64
	PayTxFee           int64
	MaxTxFee           int64
	ConsolidateFeeRate int64
	// MinRelayFee is the relay floor of the chain (Core's relayMinFee).
	MinRelayFee int64
	// DeprecatedRPC holds the -deprecatedrpc names.
	DeprecatedRPC map[string]bool
	// ChangeType is -changetype, nil when not set (change then follows
	// the recipients' types, Core's TransactionChangeType).
	ChangeType *OutputType
	// AddressType is -addresstype, Core's default address type: the type
	// getnewaddress hands out when none is asked, and getrawchangeaddress
	// and change when -changetype is not set (bech32 by default).
	AddressType OutputType
}

// DefaultAddressType is -addresstype, bech32 when unset.
func (o *Options) DefaultAddressType() OutputType {
	if o.AddressType == "" {
		return Bech32
	}
	return o.AddressType
}

// DefaultOptions returns Core's defaults.
func DefaultOptions() Options {
	return Options{
		WalletRBF: DefaultWalletRBF, TxConfirmTarget: DefaultTxConfirmTarget,
		SpendZeroConfChange: DefaultSpendZeroConf, WalletBroadcast: DefaultWalletBroadcast,
		AvoidPartialSpends: DefaultAvoidPartialSpends, MaxAPSFee: DefaultMaxAPSFee,
		DiscardFee: DefaultDiscardFee, FallbackFee: DefaultFallbackFee, MinTxFee: DefaultMinTxFee,
		PayTxFee: DefaultPayTxFee, MaxTxFee: coin / 10, ConsolidateFeeRate: DefaultConsolidateFeeRate,
		MinRelayFee: DefaultMinRelayFee, DeprecatedRPC: map[string]bool{},
		AddressType: Bech32,
	}
}

// AllowFallbackFee reports whether a fallback fee is configured (Core's
// m_allow_fallback_fee: -fallbackfee not 0).
func (o *Options) AllowFallbackFee() bool { return o.FallbackFee != 0 }

// ParseMoney reads an amount the way Core's ParseMoney does: optional
// spaces around, digits (at most 10) with an optional point and at most 8
// decimals, no sign, within the money range.
func ParseMoney(s string) (int64, bool) {
	s = strings.Trim(s, " \f\n\r\t\v")
	if s == "" || strings.IndexByte(s, 0) >= 0 {
		return 0, false
	}
	whole, frac, hasPoint := strings.Cut(s, ".")
	if len(whole) > 10 || len(frac) > 8 || (whole == "" && !hasPoint) {
		return 0, false
	}
	var units int64
	for _, c := range whole {
		if c < '0' || c > '9' {
			return 0, false
		}
		units = units*10 + int64(c-'0')
	}
	units *= coin
	mult := int64(coin / 10)
	for _, c := range frac {
		if c < '0' || c > '9' {
			return 0, false
		}
		units += int64(c-'0') * mult
		mult /= 10
	}
	if units < 0 || units > maxMoney {
		return 0, false
	}
	return units, true
}

// FormatFeeRate writes a fee rate per 1000 vbytes as Core's
// CFeeRate::ToString does ("0.00001000 BTC/kvB").
func FormatFeeRate(perKvB int64) string {
	sign := ""
	if perKvB < 0 {
		sign, perKvB = "-", -perKvB
	}
	return fmt.Sprintf("%s%d.%08d BTC/kvB", sign, perKvB/coin, perKvB%coin)
}

// ParseOptions reads the wallet options through get (the value of an
// option when it was given) with Core's checks, messages and warnings
// (CWallet::Create). A value that does not parse is an error, as it stops
// Core's wallet from loading.
func ParseOptions(get func(name string) (string, bool), deprecated []string) (Options, []string, error) {
	o := DefaultOptions()
	var warnings []string
	// The amount options in Core's order. Each value must parse as an
	// amount; one above high (when high > 0) adds the warning; a minimum
	// (least, the error's tail with the minimum relay fee for %s) refuses
	// smaller values.
	for _, a := range []struct {
		name       string
		dst        *int64
		offAllowed bool   // "-1" turns the option off (-1)
		deprecated string // warned about whenever the option is given
		high       int64
		warning    string
		least      string
	}{
		{name: "mintxfee", dst: &o.MinTxFee, high: highTxFeePerKB,
			warning: "-mintxfee is set very high! This is the minimum transaction fee you pay on every transaction."},
		{name: "maxapsfee", dst: &o.MaxAPSFee, offAllowed: true, high: highAPSFee,
			warning: "-maxapsfee is set very high! This is the maximum transaction fee you pay (in addition to the normal fee) to prioritize partial spend avoidance over regular coin selection."},
		{name: "fallbackfee", dst: &o.FallbackFee, high: highTxFeePerKB,
			warning: "-fallbackfee is set very high! This is the transaction fee you may pay when fee estimates are not available."},
		{name: "discardfee", dst: &o.DiscardFee, high: highTxFeePerKB,
			warning: "-discardfee is set very high! This is the transaction fee you may discard if change is smaller than dust at this level"},
		{name: "paytxfee", dst: &o.PayTxFee, deprecated: "-paytxfee is deprecated and will be fully removed in v31.0.",
			high: highTxFeePerKB, warning: "-paytxfee is set very high! This is the transaction fee you will pay if you send a transaction.",
			least: "(must be at least %s)"},
		{name: "maxtxfee", dst: &o.MaxTxFee, high: highMaxTxFee,
			warning: "-maxtxfee is set very high! Fees this large could be paid on a single transaction.",
			least:   "(must be at least the minrelay fee of %s to prevent stuck transactions)"},
		{name: "consolidatefeerate", dst: &o.ConsolidateFeeRate},
	} {
		v, ok := get(a.name)
		if !ok {
			continue
		}
		if a.deprecated != "" {
			warnings = append(warnings, a.deprecated)
		}
		if a.offAllowed && v == "-1" {
			*a.dst = -1
			continue
		}
		n, ok := ParseMoney(v)
		if !ok {
			return o, nil, fmt.Errorf("Invalid amount for -%s=<amount>: '%s'", a.name, v)
		}
		if a.high > 0 && n > a.high {
			warnings = append(warnings, a.warning)
		}
		if a.least != "" && n < o.MinRelayFee {
			return o, nil, fmt.Errorf("Invalid amount for -%s=<amount>: '%s' "+a.least, a.name, v, FormatFeeRate(o.MinRelayFee))
		}
		*a.dst = n
	}
	var err error
	if v, ok := get("txconfirmtarget"); ok {
		if o.TxConfirmTarget, err = parseIntArg(v); err != nil {
			return o, nil, fmt.Errorf("invalid value for -txconfirmtarget: %q is not a number", v)
		}
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"spendzeroconfchange", &o.SpendZeroConfChange}, {"walletrbf", &o.WalletRBF},
		{"walletbroadcast", &o.WalletBroadcast}, {"avoidpartialspends", &o.AvoidPartialSpends}} {
		if v, ok := get(b.name); ok {
			*b.dst = parseBoolArg(v)
		}
	}
	if v, ok := get("addresstype"); ok && v != "" {
		t, ok := ParseOutputType(v)
		if !ok {
			return o, nil, fmt.Errorf("Unknown address type '%s'", v)
		}
		o.AddressType = t
	}
	if v, ok := get("changetype"); ok && v != "" {
		t, ok := ParseOutputType(v)
		if !ok {
			return o, nil, fmt.Errorf("Unknown change type '%s'", v)
		}
		o.ChangeType = &t
	}
	for _, d := range deprecated {
		o.DeprecatedRPC[d] = true
	}
	return o, warnings, nil
}

// parseIntArg reads an integer option as Core's GetIntArg (LocaleIndependentAtoi:
// leading digits, 0 when none); a value with no digits at all is refused here.
func parseIntArg(v string) (int, error) {
	v = strings.TrimSpace(v)
	end := 0
	if end < len(v) && (v[end] == '-' || v[end] == '+') {
		end++
	}
	for end < len(v) && v[end] >= '0' && v[end] <= '9' {
		end++
	}
	return strconv.Atoi(v[:end])
}

// parseBoolArg reads a boolean option as Core's InterpretBool: "" is true,
// otherwise the integer value is compared with zero.
func parseBoolArg(v string) bool {
	if v == "" {
		return true
	}
	n, err := parseIntArg(v)
	return err == nil && n != 0
}
