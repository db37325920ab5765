// Compiles skate-confine, the small native helper every sandboxed command runs
// under (Landlock isolation from its executor, a subreaper that kills all it
// started, cgroup joining, the create guard's seccomp supervisor). A C
// compiler is already required: isolated-vm builds from source with node-gyp.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

const SOURCES = [
  'skate-confine.c',
  'create-guard.c',
  'guard-supervisor.c',
  'guard-walk.c',
  'guard-calls.c',
  'output-relay.c',
  'net-forward.c',
  'splice-channel.c',
  'splice-joint.c',
  'socket-handoff.c',
];

mkdirSync('dist/bin', { recursive: true });
try {
  execFileSync(
    process.env.CC ?? 'cc',
    [
      '-O2',
      '-Wall',
      '-Wextra',
      '-pthread',
      '-o',
      'dist/bin/skate-confine',
      ...SOURCES.map((file) => `executor/native/${file}`),
    ],
    { stdio: 'inherit' },
  );
} catch (error) {
  console.error(
    `build-native: cannot compile skate-confine (${error.message}); install a C compiler: apt-get install gcc`,
  );
  process.exit(1);
}
