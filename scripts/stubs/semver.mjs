// Stand-in for semver inside the bundle: conf uses it only for `migrations`, which schedctl
// does not use; it is over half of conf's share of a command's cold start.
const unsupported = () => {
  throw new Error('semver is not bundled: conf migrations are not supported in schedctl');
};
export default { eq: unsupported, satisfies: unsupported, clean: unsupported, lte: unsupported, gt: unsupported };
