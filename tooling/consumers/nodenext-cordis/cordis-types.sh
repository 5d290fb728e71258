# The cordis types shim for `moduleResolution: "NodeNext"`, exactly as docs/reference/tools-registry.md gives it:
# a copy of cordis's declarations in a CommonJS-scoped folder, where their extension-less imports resolve.
mkdir -p types/cordis
cp node_modules/cordis/lib/*.d.ts types/cordis/
echo '{ "type": "commonjs" }' > types/cordis/package.json
