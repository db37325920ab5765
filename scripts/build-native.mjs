// Compiles skate-confine, the small native helper every sandboxed command runs
// under (Landlock isolation from its executor, a subreaper that kills all it
// started, cgroup joining). A C compiler is already required: isolated-vm
// builds from source with node-gyp.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

mkdirSync('dist/bin', { recursive: true });
try {
  execFileSync(
    process.env.CC ?? 'cc',
    ['-O2', '-Wall', '-Wextra', '-o', 'dist/bin/skate-confine', 'executor/native/skate-confine.c'],
    { stdio: 'inherit' },
  );
} catch (error) {
  console.error(
    `build-native: cannot compile skate-confine (${error.message}); install a C compiler: apt-get install gcc`,
  );
  process.exit(1);
}
