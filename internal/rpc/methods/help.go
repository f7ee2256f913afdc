package methods

import (
	"context"

	"github.com/descwallet/descwallet/internal/rpc"
)

// newHelp returns the help method over the method table *table (a pointer,
// because help is part of the table it describes).
func newHelp(table *[]*rpc.Method) *rpc.Method {
	return &rpc.Method{
		Name:     "help",
		Category: "control",
		Description: "Without an argument, lists the methods this node serves, " +
			"grouped by category.\nWith a method name, prints that method's " +
			"synopsis, arguments, result and examples.",
		Params: []rpc.Param{
			{Name: "command", Type: rpc.TypeString, Optional: true,
				Default:     "all methods",
				Description: "The method to describe."},
		},
		Result:   "\"text\"    (string) The list of methods, or the help of one method",
		Examples: []string{"", "getaddressinfo"},
		Handler: func(_ context.Context, req *rpc.Request) (any, error) {
			if !req.Has(0) {
				return rpc.HelpList(*table), nil
			}
			name, err := req.String(0)
			if err != nil {
				return nil, err
			}
			for _, m := range *table {
				if m.Name == name {
					return m.Help(), nil
				}
			}
			return "help: unknown method: " + name, nil
		},
	}
}
