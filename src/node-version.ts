// Stops an entry point at once, with a plain message, on a Node.js older than package.json's `engines` allows: an
// older Node would otherwise fail later with an error about a missing API that names nothing the user can act on.

const REQUIRED_MAJOR = 20;
const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_MAJOR) {
  console.error(
    `Count Centre needs Node.js ${REQUIRED_MAJOR} or later; this is Node.js ${process.versions.node}. ` +
      'Install a current Node.js (https://nodejs.org/) and run the install command again.',
  );
  process.exit(1);
}

export {};
