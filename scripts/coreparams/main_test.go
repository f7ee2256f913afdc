package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A small source tree in Core's shapes: a plain method, an argument
// helper with a push_back, Cat<>, an OBJ_NAMED_PARAMS with options, an
// alias, a method made by a helper taking its name, an overload, an
// RPCArg variable, a type table, the command table and the conversion
// table.
const sampleRPC = `// Copyright
#include <rpc/util.h>

/* a comment with RPCHelpMan{ in it */
static const auto scan_arg = RPCArg{"action", RPCArg::Type::STR, RPCArg::Optional::NO, "The action"};

static std::vector<RPCArg> FeeDoc(bool extra = true)
{
    std::vector<RPCArg> args = {
        {"conf_target", RPCArg::Type::NUM, RPCArg::DefaultHint{"6"}, "Target", RPCArgOptions{.also_positional = true}},
    };
    if (extra) {
        args.push_back({"solving_data", RPCArg::Type::OBJ, RPCArg::Optional::OMITTED, "Data",
            {
                {"pubkeys", RPCArg::Type::ARR, RPCArg::Default{UniValue::VARR}, "Keys", {{"pubkey", RPCArg::Type::STR_HEX, RPCArg::Optional::OMITTED, "A key"}}},
            }});
    }
    return args;
}

static RPCHelpMan fundit()
{
    return RPCHelpMan{
        "fundit",
        "Funds " "it, "
        + std::string("with a, comma") + ".\n",
        {
            {"hexstring", RPCArg::Type::STR_HEX, RPCArg::Optional::NO, "The hex"},
            {"options", RPCArg::Type::OBJ_NAMED_PARAMS, RPCArg::Optional::OMITTED, "",
                Cat<std::vector<RPCArg>>(
                {
                    {"add_inputs", RPCArg::Type::BOOL, RPCArg::Default{true}, "Add"},
                    {"fee_rate", RPCArg::Type::AMOUNT, RPCArg::DefaultHint{"x"}, "Rate"},
                },
                FeeDoc()),
                RPCArgOptions{.skip_type_check = true, .oneline_description = "options"}},
            {"verbosity|verbose", RPCArg::Type::NUM, RPCArg::Default{1}, "How much"},
        },
        RPCResult{RPCResult::Type::STR, "", ""},
        RPCExamples{HelpExampleCli("fundit", "\"hex\"")},
        [&](const RPCHelpMan& self, const JSONRPCRequest& request) -> UniValue
{
    RPCTypeCheckObj(request.params[1],
        {
            {"add_inputs", UniValueType(UniValue::VBOOL)},
            {"fee_rate", UniValueType()},
        },
        true, true);
    return NullUniValue;
},
    };
}

static RPCHelpMan echo(const std::string& name)
{
    return RPCHelpMan{name, "Echo.",
        {{"arg0", RPCArg::Type::STR, RPCArg::Optional::OMITTED, "", RPCArgOptions{.skip_type_check = true}}},
        RPCResult{RPCResult::Type::ANY, "", ""}, RPCExamples{""},
        [&](const RPCHelpMan& self, const JSONRPCRequest& request) -> UniValue { return request.params; }};
}
static RPCHelpMan echo() { return echo("echo"); }
static RPCHelpMan echojson() { return echo("echojson"); }

static RPCHelpMan scan()
{
    return RPCHelpMan{"scan", "Scan.", {scan_arg, {"n", RPCArg::Type::RANGE, RPCArg::Default{1000}, "N"}},
        RPCResult{RPCResult::Type::NONE, "", ""}, RPCExamples{""},
        [&](const RPCHelpMan& self, const JSONRPCRequest& request) -> UniValue { return NullUniValue; }};
}

void RegisterSampleRPCCommands(CRPCTable& t)
{
    static const CRPCCommand commands[]{
        {"rawtransactions", &fundit},
        {"hidden", &echo},
        {"hidden", &echojson},
        {"blockchain", &scan},
    };
    for (const auto& c : commands) {
        t.appendCommand(c.name, &c);
    }
}
`

const sampleClient = `static const CRPCConvertParam vRPCConvertParams[] =
{
    { "fundit", 1, "options" },
    { "fundit", 1, "add_inputs" },
    { "scan", 1, "n", ParamFormat::JSON_OR_STRING },
    { "other", 0, "label", ParamFormat::STRING },
};
`

func TestExtractSample(t *testing.T) {
	src := t.TempDir()
	for name, text := range map[string]string{"rpc/sample.cpp": sampleRPC, "rpc/client.cpp": sampleClient, "test/skip.cpp": "RPCHelpMan{ broken"} {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	table, err := extract(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []Method{
		{Name: "echo", Category: "hidden", File: "rpc/sample.cpp", Params: []Arg{{Name: "arg0", Type: "STR", Optional: true, SkipTypeCheck: true}}},
		{Name: "echojson", Category: "hidden", File: "rpc/sample.cpp", Params: []Arg{{Name: "arg0", Type: "STR", Optional: true, SkipTypeCheck: true}}},
		{Name: "fundit", Category: "rawtransactions", File: "rpc/sample.cpp", Params: []Arg{
			{Name: "hexstring", Type: "STR_HEX"},
			{Name: "options", Type: "OBJ_NAMED_PARAMS", Optional: true, SkipTypeCheck: true, Inner: []Arg{
				{Name: "add_inputs", Type: "BOOL", Optional: true},
				{Name: "fee_rate", Type: "AMOUNT", Optional: true},
				{Name: "conf_target", Type: "NUM", Optional: true, AlsoPositional: true},
				{Name: "solving_data", Type: "OBJ", Optional: true, Inner: []Arg{
					{Name: "pubkeys", Type: "ARR", Optional: true, Inner: []Arg{{Name: "pubkey", Type: "STR_HEX", Optional: true}}},
				}},
			}},
			{Name: "verbosity|verbose", Type: "NUM", Optional: true},
		}, CLI: []Convert{{1, "options", "JSON"}, {1, "add_inputs", "JSON"}}},
		{Name: "scan", Category: "blockchain", File: "rpc/sample.cpp", Params: []Arg{
			{Name: "action", Type: "STR"},
			{Name: "n", Type: "RANGE", Optional: true},
		}, CLI: []Convert{{1, "n", "JSON_OR_STRING"}}},
	}
	if !reflect.DeepEqual(table.Methods, want) {
		t.Errorf("methods:\n got %+v\nwant %+v", table.Methods, want)
	}
	if got := table.CLIOnly["other"]; len(got) != 1 || got[0] != (Convert{0, "label", "STRING"}) {
		t.Errorf("conversion entries of unknown methods: %+v", table.CLIOnly)
	}
	wantChecks := []TypeCheck{{Function: "fundit", File: "rpc/sample.cpp", Line: 43, AllowNull: true, Strict: true,
		Fields: map[string]string{"add_inputs": "bool", "fee_rate": ""}}}
	if !reflect.DeepEqual(table.TypeChecks, wantChecks) {
		t.Errorf("type checks:\n got %+v\nwant %+v", table.TypeChecks, wantChecks)
	}
}

// TestExtractRefusesUnknownShapes: a declaration the parser does not
// understand is an error, not a guess.
func TestExtractRefusesUnknownShapes(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "rpc"), 0o755)
	bad := `static RPCHelpMan m()
{
    return RPCHelpMan{"m", "M.", MakeArgs(3), RPCResult{}, RPCExamples{""}};
}
static const CRPCCommand commands[]{ {"util", &m} };
`
	os.WriteFile(filepath.Join(src, "rpc", "bad.cpp"), []byte(bad), 0o644)
	os.WriteFile(filepath.Join(src, "rpc", "client.cpp"), []byte(sampleClient), 0o644)
	if _, err := extract(src); err == nil {
		t.Error("an argument helper called with arguments was accepted")
	}
}
