// `make web`: builds the browser client's files into server/web/static/ (docs/web.md).
//
// The page is plain scripts (no framework, no bundler): web/src/ is copied as is, and the
// msgpack codec is vendored from the pinned @msgpack/msgpack (package-lock.json) with its
// licence, so the server and its tests never need Node. The server gives every file a
// content-hashed URL when it starts (server/web/pages.py).
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "server", "web", "static");
const pkg = join(here, "node_modules", "@msgpack", "msgpack");

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "vendor"), { recursive: true });

for (const name of readdirSync(join(here, "src"))) {
  copyFileSync(join(here, "src", name), join(out, name));
}

const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
// The source map is not shipped: drop the comment that would make browsers ask for it.
const codec = readFileSync(join(pkg, "dist.umd", "msgpack.min.js"), "utf8")
  .replace(/\n?\/\/# sourceMappingURL=.*\s*$/, "\n");
writeFileSync(
  join(out, "vendor", "msgpack.min.js"),
  `/*! @msgpack/msgpack ${version} | ISC License | see msgpack.LICENSE.txt */\n${codec}`,
);
copyFileSync(join(pkg, "LICENSE"), join(out, "vendor", "msgpack.LICENSE.txt"));
console.log(`built ${out} (@msgpack/msgpack ${version})`);
