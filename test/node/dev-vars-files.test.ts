// What dev does with what wrangler would otherwise take from the
// generated config's folder: the project's variable files copied there,
// and `--env-file` paths taken from where the user typed them.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { copyVarsFiles, envFilesFrom } from "../../src/cli/dev-vars";

describe("the project's variable files", () => {
  const dir = mkdtempSync(join(tmpdir(), "roost-dev-vars-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("copies every file wrangler dev might read, and nothing else", () => {
    const [root, work] = [join(dir, "root"), join(dir, "work")];
    mkdirSync(root);
    mkdirSync(work);
    const read = [".dev.vars", ".dev.vars.staging", ".env", ".env.local"];
    for (const name of [...read, ".envrc", "dev.vars", "wrangler.toml"])
      writeFileSync(join(root, name), `A=${name}\n`);
    mkdirSync(join(root, ".env.d"));
    expect(copyVarsFiles(root, work)).toEqual([...read].sort());
    expect(readdirSync(work).sort()).toEqual([...read].sort());
    expect(readFileSync(join(work, ".dev.vars"), "utf8")).toBe("A=.dev.vars\n");
  });

  it("takes --env-file paths from where the user typed them", () => {
    expect(
      envFilesFrom(
        ["--env-file", "a.env", "--env-file=b.env", "--env-file", "/c.env"],
        "/here"
      )
    ).toEqual([
      "--env-file",
      "/here/a.env",
      "--env-file=/here/b.env",
      "--env-file",
      "/c.env"
    ]);
  });
});
