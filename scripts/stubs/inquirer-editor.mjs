// Stand-in for @inquirer/editor inside the bundle: schedctl never opens an external editor,
// and the real one brings iconv-lite and chardet (most of the prompts' size).
export default function editor() {
  throw new Error('the editor prompt is not bundled in schedctl');
}
