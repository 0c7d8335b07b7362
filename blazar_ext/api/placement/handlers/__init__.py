"""One module per placement resource: policy, input, domain, output."""
