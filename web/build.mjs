// `make web`: vendors the browser client's one dependency into server/net/web/static/vendor/
// (docs/web.md).
//
// The page itself is plain scripts with no build step (no framework, no bundler), so its
// source is server/net/web/static/app.js and style.css, edited where they are served from: one
// copy, nothing to keep in step. Only the msgpack codec comes from the pinned
// @msgpack/msgpack (package-lock.json), with its licence, so the server and its tests never
// need Node. The server gives every file a content-hashed URL when it starts
// (server/net/web/pages.py).
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "server", "net", "web", "static");
const pkg = join(here, "node_modules", "@msgpack", "msgpack");

rmSync(join(out, "vendor"), { recursive: true, force: true });
mkdirSync(join(out, "vendor"), { recursive: true });

const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
// The source map is not shipped: drop the comment that would make browsers ask for it.
const codec = readFileSync(join(pkg, "dist.umd", "msgpack.min.js"), "utf8")
  .replace(/\n?\/\/# sourceMappingURL=.*\s*$/, "\n");
writeFileSync(
  join(out, "vendor", "msgpack.min.js"),
  `/*! @msgpack/msgpack ${version} | ISC License | see msgpack.LICENSE.txt */\n${codec}`,
);
copyFileSync(join(pkg, "LICENSE"), join(out, "vendor", "msgpack.LICENSE.txt"));
console.log(`vendored @msgpack/msgpack ${version} into ${join(out, "vendor")}`);
