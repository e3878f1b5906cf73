"""What a report says the cause is, in its own words: the phrases people use for causes tfdoctor
knows (no arm64 wheel, a macOS too old for the plugin, h5py that would not build, a GPU
TensorFlow does not find, a package that requires `tensorflow` where the Mac's TensorFlow is
tensorflow-macos, the Metal plugin registered twice, an import that fails for the architecture,
a CPU without AVX, a crash on an illegal instruction, TF Hub's KerasLayer refused by a Sequential
model: Keras 3's refusal of a Keras 2 layer). A bug report often states the cause in
prose, or shows the error only in a screenshot; a maintainer reads the words. These are not
messages a program prints, so each one is written over the family of phrasings (negations,
either word order, the usual synonyms), never one user's sentence, and a finding that rests on
one is "reported", not "observed" (the engine ranks what was observed first). They are read
in a text's first block only, never inside a string argument of a call, which is code's
message, and never inside a sentence that opens with a condition ("If TensorFlow doesn't find
the GPU, ..." is a guide's advice) (tfdoctor.logtext.signature.Signature.prose). Each needs a
TensorFlow word near it: the same phrase about another project is that project's (h5py names
itself, as its printed messages do).
"""

from __future__ import annotations

import re
from itertools import permutations

from tfdoctor.logtext.nvidia import LIBRARY_FILE, library_fields
from tfdoctor.logtext.signature import SAID, Fields, Signature, adds, sig
from tfdoctor.logtext.training import HUB_LAYER_API

_FLAGS = re.IGNORECASE | re.MULTILINE
_TENSORFLOW = re.compile(r"tensorflow|\btf[-_. ]|\btf\d|\bkeras\b|\bmetal\b", re.IGNORECASE)

_WHEEL = r"(?:wheels?|whls?|builds?|binar(?:y|ies)|distributions?|packages?)"
_APPLE_OR_MAC = (r"(?:arm(?:64)?|aarch64|macosx_\w{0,20}arm64|apple[ -]?silicon|m[1-4](?:[ /-](?:pro|max|ultra|m[1-4]))*|osx-arm64|"
                 r"mac ?os[ /-]?(?:arm64|x86_64|x86|intel)|intel macs?|x86_64 mac(?:os)?|macs?|mac ?os)")

_REQUIREMENT = (r"(?:requirements?(?:\.txt)?|setup\.(?:py|cfg)|pyproject\.toml|install_requires?|"
                r"dependenc(?:y|ies)|deps)")
"""Where a package declares what it needs."""
_NOT = r"(?:\bno|n't|\bnot(?!\s(?:sure|certain|clear))|\bnever)"
"""A negation that says something is missing ("not sure which wheel" says nothing of the kind)."""
_MARK = r"[`'\"*]*"
"""Markdown's quotes and emphasis around a package name."""
_SENTENCE = r"(?:[^.\n]|\.(?=\w))"
_AVX = r"\bavx(?![\w]|-?512)"
"""AVX itself: not AVX2 or AVX-512, which TensorFlow's wheels do not need."""
"""A character of the same sentence (a version's dots do not end it)."""


def _tensorflow_near(fields: Fields, text: str) -> bool:
    """The phrase is about TensorFlow's world when a TensorFlow word is near it: in the text
    around it (tfdoctor.logtext.signature.WINDOW characters either side)."""
    return bool(_TENSORFLOW.search(text))


_APPLE_SILICON_WORDS = re.compile(r"apple[ -]?silicon|\bm[1-4]\b|arm64|aarch64|tensorflow[-_]mac|\bmac", re.IGNORECASE)


def _about_apple_silicon(fields: Fields, text: str) -> bool:
    """A phrase about the name `tensorflow` is this cause only on a Mac: the window says so."""
    return bool(_APPLE_SILICON_WORDS.search(text))


def _floor(fields: Fields) -> Fields:
    """One field for the macOS the phrase names, whichever way it was said."""
    floor = fields.get("built_for") or fields.get("needs") or fields.get("built")
    return {"built_for": floor} if floor else {}


_REFUSED = (r"(?:\bcan(?:no|')t\b|\bcan\snot\b|\bwon't\b|\bwill\snot\b|\bunable\b|\bValueError\b|\brefuse[sd]?\b|"
            r"\bnot\s(?:be\s)?(?:added|accepted|recogni[sz]ed|allowed)\b)")
"""Words that say one thing was refused by another ("can't handle", "cannot be added", "raises a
ValueError"); an error somewhere in the same sentence is not enough."""


def _in_one_sentence(*parts: str) -> str:
    """The parts in one sentence, in any order (each pattern's own words)."""
    return "|".join(f"{a}{_SENTENCE}{{0,80}}?{b}{_SENTENCE}{{0,80}}?{c}" for a, b, c in permutations(parts))


def _said(variant: str, code: str, stage: str, title: str, pattern: str, example: str, source: str,
          **kwargs: object) -> Signature:
    kwargs.setdefault("applies", _tensorflow_near)
    return sig(code, SAID + variant, stage, f"the report says {title}", re.compile(pattern, _FLAGS),
               example, source, key=(), **kwargs)


_METAL = re.compile(r"\bmetal\b|tensorflow[-_]metal", re.IGNORECASE)


def _about_metal(fields: Fields, text: str) -> bool:
    """A plugin registered twice is the Metal plugin's story only where the window names Metal
    (TensorFlow's CUDA build logs "... for plugin cuDNN when one has already been registered"
    at every start, harmlessly)."""
    return bool(_METAL.search(text))


def _library(fields: Fields) -> Fields:
    """The library's fields as the loader's own line gives them, whichever way it was said."""
    return library_fields({"library": fields.get("library") or fields.get("missing", "")})


SIGNATURES: tuple[Signature, ...] = (
    _said("no-wheel", "log.pip-no-matching-distribution", "install",
          "no wheel of the package exists for this platform",
          rf"{_NOT}\s(?:[\w-]+\s){{0,3}}?{_WHEEL}\s(?:[\w-]+\s){{0,2}}?(?:for|on|supporting)\s"
          rf"(?:[\w-]+\s)?{_APPLE_OR_MAC}\b|"
          rf"{_NOT}\s(?:[\w-]+\s){{0,3}}?{_APPLE_OR_MAC}[ -]?(?:[\w-]+\s)?{_WHEEL}\b|"
          rf"\b{_APPLE_OR_MAC}\b[^.\n]{{0,40}}?\b{_WHEEL}\s(?:are|is)\s(?:not|n't)\s(?:published|provided|built|available)|"
          r"\bno matching distribution\b(?! found for)|"
          # no wheel of any kind said without the platform: "there are no available built packages"
          r"\b(?:there(?:'s|\sis|\sare|\swere|\swas)|provides?|published|publishes|ships?|offers?|has|had)"
          r"(?:\s(?:no|not\sany)|n't\sany)\s(?:\w+\s){0,2}?"
          r"(?:available|pre-?built|binary|compatible|compiled|built)\s"
          rf"(?:\w+\s)?{_WHEEL}\b",
          "the dependency `tensorflow-text==2.15.0` which does not provide aarch64-wheels for neither manylinux nor macos",
          "https://github.com/google-ai-edge/mediapipe/issues/4088"),
    _said("macos-too-old", "log.macos-too-old", "import",
          "the macOS is older than TensorFlow or tensorflow-metal needs",
          r"\bmac ?os\s{0,3}(?:version\s{0,3})?(?:<=?|older than|earlier than|lower than|below|before|prior to)"
          r"\s{0,3}(?:mac ?os\s{0,3})?(?P<built_for>1\d(?:\.\d{1,2}){0,2})\b|"
          r"\b(?:requires?|needs?|only (?:works|runs)(?:\s\w+){0,2}\s(?:on|in)|"
          r"only (?:compatible with|supported on|available for|built for)|only supports?)"
          r"\s(?:at least\s)?mac ?os\s{0,3}(?:version\s{0,3}|>=?\s{0,3})?"
          r"(?P<needs>1\d(?:\.\d{1,2}){0,2})\b|"
          # dyld's "(which was built for Mac OS X 10.12)" told in words ("the .so was built for macOS
          # 10.12"); dyld's own note is its message's (log.macos-too-old, or the pair's for TensorFlow's symbols)
          r"(?<!\(which )\b(?:was|were|is|are|been)\s(?:\w+\s){0,2}?built\sfor\s(?:mac ?os(?:\sx)?|os\s?x)\s{0,3}"
          r"(?P<built>1\d(?:\.\d{1,2}){0,2})\b",
          "# Tensorflow - Metal Support for Mac OS\n\nI believe you need macOS 12 Monterey and not macOS 11 Big Sur.",
          "https://github.com/tensorflow/tensorflow/issues/11085", derive=_floor, outputs=("built_for",)),
    _said("h5py-build", "log.h5py-build", "install", "h5py failed to build or install",
          r"\bh5py\b[^.\n]{0,40}?\b(?:fail\w*|errors?|problems?|issues?|cannot|can't|couldn't|won't)\b[^.\n]{0,20}?"
          r"\b(?:build|built|building|install\w*|compil\w*)|"
          r"\bh5py\b[^.\n]{0,60}?\b(?:build|building|compil\w*)\b[^.\n]{0,40}?\b(?:fail\w*|errors?)|"
          r"\b(?:build|building|install\w*|compil\w*)\b[^.\n]{0,20}?\b(?:fail\w*|errors?|problems?|issues?)\b"
          r"[^.\n]{0,20}?\bh5py\b",
          "Since there are no wheels provided for macOS 11.1, h5py attempts to build locally and fails.",
          "https://github.com/h5py/h5py/issues/1800", needle="h5py", applies=None),
    _said("tensorflow-name", "log.pip-depends-on-tensorflow", "install",
          "a package requires the distribution `tensorflow`, where the Mac's TensorFlow is tensorflow-macos",
          rf"\btensorflow[-_]mac(?:os)?\b{_SENTENCE}{{0,60}}?\b(?:instead of|rather than|and not|not)\s{_MARK}tensorflow\b(?![-_.]\w)|"
          rf"\b(?:chang|replac|switch|swap|renam)\w*\b{_SENTENCE}{{0,60}}?\btensorflow\b(?![-_]mac){_SENTENCE}{{0,60}}?"
          rf"\b(?:to|with|by|for)\s{_MARK}tensorflow[-_]mac(?:os)?\b|"
          rf"\btensorflow\b(?![-_.]\w){_MARK}\s(?:dependency|requirement|package|distribution)\s"
          r"(?:doesn't|does not|won't|can't|cannot|fails?|is causing|causing|breaks?)\b|"
          rf"\btensorflow[-_]macos{_MARK}\s(?:\w+\s){{0,4}}?instead\b|"
          rf"\b(?:does not|doesn't|won't|can't|cannot|fails? to)\s(?:\w+\s){{0,2}}?(?:work|install)\w*\s(?:\w+\s){{0,2}}?"
          rf"with\s{_MARK}tensorflow[-_]macos\b|"
          rf"\b(?:depends?\s(?:on|upon)|requires?|includes?|lists?|pins?)\s{_MARK}tensorflow\b(?![-_.]\w){_MARK}"
          rf"{_SENTENCE}{{0,12}}?\b(?:but|while|whereas|though|although|yet)\b{_SENTENCE}{{0,80}}?\btensorflow[-_]macos\b|"
          # a requirement that does not take tensorflow-macos for tensorflow, either word order
          rf"\btensorflow[-_]macos\b{_MARK}{_SENTENCE}{{0,40}}?\b(?:isn't|is not|aren't|are not|not|never)\s"
          r"(?:\w+\s){0,2}?(?:recogni[sz]e[ds]?|accept(?:ed|s)?)\b|"
          r"\b(?:doesn't|does not|don't|do not|didn't|did not|won't|can't|cannot|fails? to)\s(?:\w+\s){0,2}?"
          rf"(?:recogni[sz]e|accept)\s{_MARK}tensorflow[-_]macos\b|"
          rf"\bnot\s(?:\w+\s){{0,2}}?satisfied\sby\s{_MARK}tensorflow[-_]macos\b|"
          # a requirement that names only `tensorflow` ("in requirements there's only `tensorflow`")
          rf"\b{_REQUIREMENT}\b{_SENTENCE}{{0,40}}?\b(?:only|just)\s(?:[a-z]+\s)?{_MARK}"
          rf"tensorflow\b(?![-_.]\w)|"
          # a requirement changed to the Mac's name ("changing the install_require to tensorflow-mac>=2")
          r"\b(?:chang|replac|switch|edit|modif)\w*\s(?:\w+\s){0,3}?"
          rf"{_REQUIREMENT}\s(?:\w+\s){{0,3}}?(?:to|with|by|into)\s{_MARK}tensorflow[-_]mac(?:os)?\b|"
          # ... in conflict with it, the Mac's name said in the same sentence, either order
          rf"\btensorflow[-_]{_MARK}macos\b{_SENTENCE}{{0,80}}?\bconflict\w*\b{_SENTENCE}{{0,60}}?"
          rf"\b{_REQUIREMENT}\b{_SENTENCE}{{0,60}}?\btensorflow\b(?![-_.]\w)|"
          rf"\b{_REQUIREMENT}\b{_SENTENCE}{{0,60}}?\btensorflow\b(?![-_.]\w){_SENTENCE}{{0,60}}?"
          rf"\bconflict\w*\b{_SENTENCE}{{0,60}}?\btensorflow[-_]{_MARK}macos\b",
          "To install on an Apple Silicon machine, you will need [tensorflow-macos]"
          "(https://developer.apple.com/metal/tensorflow-plugin/) instead of tensorflow.",
          "https://github.com/logictensornetworks/logictensornetworks/issues/32", applies=_about_apple_silicon),
    _said("plugin-registered-twice", "log.plugin-registered-twice", "import",
          "the Metal plugin is registered twice",
          r"(?<!factory for )\b(?:plugin|platform)s?\b(?:(?!\bnot\b|n't\b)[^.\n]){0,40}?"
          r"\b(?:already\s(?:been\s)?registered|registered\s(?:twice|two times|more than once))\b|"
          r"\b(?:registers?|registered|registering)\s(?:the\s)?(?:metal\s|gpu\s)?(?:plugin|platform)\s"
          r"(?:twice|two times|more than once)\b|"
          r"\b(?:already|double)[- ]registered\s(?:metal\s|gpu\s)?(?:plugin|platform)\b",
          "then I get the error about the METAL plugin having been already registered.",
          "https://stackoverflow.com/questions/67912944", needle="register", applies=_about_metal,
          derive=adds(platform="METAL"), outputs=("platform",)),
    _said("arch-mismatch", "log.arch-mismatch", "import",
          "an import fails because of the architecture (x86_64 against arm64)",
          r"\bimport(?:ed|ing|s)?\b[^.\n]{0,60}?\b(?:for|because of|due to)\s(?:the\s|a\s|an\s)?"
          r"(?:cpu\s|wrong\s|different\s|processor\s)?architectures?\b(?!\s(?:of|for)\sthe\s(?:model|network))|"
          r"\b(?:cpu|processor|binary)\sarchitectures?\s(?:mismatch|problem|issue|error|conflict)s?\b",
          "the tensorflow still can't be imported for the architecture reason",
          "https://github.com/apple/tensorflow_macos/issues/44", needle="architecture"),
    # the crash told in words ("import tensorflow throws an illegal instruction error"); a shell's
    # own line ("Illegal instruction: 4") is the printed signature's
    _said("illegal-instruction", "log.illegal-instruction", "import",
          "the process died on an illegal instruction",
          r"\b(?:gets?|got|getting|gives?|gave|giving|throws?|threw|throwing|raises?|raised|raising|"
          r"(?:crash(?:es|ed|ing)?|die[sd]?|dying|fail(?:s|ed|ing)?|end(?:s|ed|ing)?|abort(?:s|ed|ing)?|"
          r"exit(?:s|ed|ing)?)\swith|shows?|showed|showing)"
          r"\s(?:an?\s|the\s)?[`'\"*]*illegal\s(?:hardware\s)?instruction\b|"
          r"\billegal\s(?:hardware\s)?instruction[`'\"*]*\s(?:errors?|crash(?:es)?|exceptions?|signals?)\b",
          "I was using tensorflow 2 without any issue until a few days ago. I installed it using pip in a "
          "new virtualenv environment and now it throws illegal instruction error.",
          "https://github.com/tensorflow/tensorflow/issues/45744",
          needle="llegal"),
    # TensorFlow's x86 wheels are built with AVX since 1.6: a CPU said to lack it (AVX2 and AVX-512
    # are other extensions; "supports AVX" is the opposite)
    _said("no-avx", "log.avx-missing", "import", "the CPU has no AVX, which TensorFlow's x86 builds need",
          rf"\b(?:cpus?|processors?|machines?|computers?|laptops?|pcs?|chips?|hardware|servers?)\b{_SENTENCE}{{0,60}}?"
          rf"(?:\bdoes\snot|\bdo\snot|\bdid\snot|n't|\bcannot|\bcan\snot)\s(?:\w+\s){{0,2}}?(?:support|have|has|offer)\s"
          rf"(?:the\s|any\s)?{_AVX}|"
          rf"\b(?:without|lacks?|lacking|no)\s(?:the\s|any\s)?{_AVX}(?!\s(?:warnings?|messages?)\b)|"
          rf"{_AVX}(?:[\s-](?:instructions?|support|extensions?))?\s(?:is|are|was|were)\s(?:not\s|n't\s)?"
          r"(?:missing|absent|unavailable|not\s(?:supported|available|present))\b",
          "when importing tensorflow i am getting an illegal instruction error.\nmine is new model CPU ,but AVX "
          "instruction are missing?What should i do?plz help",
          "https://github.com/tensorflow/tensorflow/issues/48319", needle="avx"),
    _said("no-gpu", "log.no-gpu-listed", "import", "TensorFlow does not find the GPU",
          r"\b(?:can't|cannot|can not|doesn't|does not|didn't|did not|won't|unable to|fails? to|not able to)\s"
          r"(?:\w+\s){0,2}?(?:find|detect|see|recogni[sz]e|list)\s(?:any\s|the\s|my\s|a\s)?"
          r"(?:local\s|apple\s|m[1-4]\s|metal\s)?gpus?\b|"
          # unable to use it at all ("tensorflow can't utilize the gpu"); "doesn't use the GPU" may
          # be one op's placement, which is another story
          r"\b(?:can't|cannot|can not|unable to|not able to)\s(?:\w+\s){0,2}?(?:use|utili[sz]e|access)\s"
          r"(?:any\s|the\s|my\s|a\s)?(?:local\s|apple\s|m[1-4]\s|metal\s)?gpus?\b(?!['’]s)|"
          r"\bgpus?\s(?:is\s|was\s|are\s|were\s)?(?:not|never)\s(?:being\s)?(?:detected|found|recogni[sz]ed|listed)\b|"
          r"\bno gpus?\s(?:is\s|was\s)?(?:found|detected|listed|devices?)\b|"
          r"(?:\bnot|n't)\s(?:\w+\s){0,3}?(?:use|using|engag\w+)\s(?:the\s|my\s|a\s)?gpus?\sat all\b",
          "However, tensorflow did not seem to use GPU at all.",
          "https://github.com/OHBA-analysis/osl-dynamics/issues/247", needle="gpu"),
    # an NVIDIA library named as what would not load ("a bug while trying to load libcudart.so.10.1",
    # "TensorFlow cannot find cudart64_110.dll"), or as missing; the loader's own line says the same
    # in TensorFlow's words (nvidia-library-not-opened: "Could not load dynamic library 'X'", "Couldn't
    # open CUDA library X", not read here; the same words otherwise, "Cannot open dynamic library X",
    # are a person's), and both count only where a GPU is wanted
    _said("cuda-library", "log.gpu-libraries", "import", "an NVIDIA library TensorFlow needs would not load",
          rf"(?:\b(?:fail(?:s|ed|ing|ure)?|unable|can't|cannot|can\snot|couldn't|could\snot|won't|not\sable|bugs?|"
          rf"errors?|problems?)\b{_SENTENCE}{{0,60}}?\b(?:load|open|find|locate)(?:s|ed|ing)?\b"
          rf"(?!(?<=load)\sdynamic\slibrary\s'|(?<=open)\sCUDA\slibrary\s){_SENTENCE}{{0,30}}?"
          rf"{_MARK}(?P<library>{LIBRARY_FILE})|"
          rf"(?P<missing>{LIBRARY_FILE}){_MARK}\s(?:is\s|was\s)?(?:missing|not\s(?:found|loaded)))(?![\w.])",
          'TensorFlow doesn\'t use my GPU because there is a bug while trying to load "libcudart.so.10.1". My '
          "system has libcudart.so.10.2 installed", "https://github.com/tensorflow/tensorflow/issues/39132",
          derive=_library, outputs=("library", "part", "wants")),  # no needle: lib*.so or *64_N.dll
    # the same failure told by the CUDA release TensorFlow wanted, not a file: "tensorflow was
    # looking for CUDA 11 libraries, instead of 12", "it cannot find the CUDA 10.1 libraries"
    _said("cuda-release", "log.gpu-libraries", "import", "TensorFlow looked for the libraries of another CUDA release",
          r"\b(?:look(?:s|ed|ing)?\sfor|search(?:es|ed|ing)?\sfor|tr(?:y|ies|ied|ying)\sto\s(?:load|open|find)|"
          r"(?:can't|cannot|can\snot|couldn't|could\snot|unable\sto|fail(?:s|ed)?\sto)\s(?:load|open|find|locate))"
          r"\s(?:the\s)?CUDA[\s-]?(?P<wants>\d{1,2}(?:\.\d{1,2})?)\s(?:runtime\s)?(?:librar(?:y|ies)|libs?|dlls?)\b",
          "tensorflow was looking for CUDA 11 libraries, instead of 12.",
          "https://github.com/tensorflow/tensorflow/issues/59413",
          derive=adds(part="CUDA"), outputs=("part", "wants"), needle="CUDA"),
    _said("keras3-hub-layer", "log.keras3-api", "training",
          "TF Hub's KerasLayer is refused by a Sequential model, as Keras 3 refuses a Keras 2 layer",
          _in_one_sentence(r"\bKerasLayer\b", r"\bSequential\b", _REFUSED),
          "Sequential api can't handle `hub.KerasLayer`",
          "https://github.com/mrdbourke/tensorflow-deep-learning/issues/668", needle="KerasLayer",
          derive=adds(api=HUB_LAYER_API), outputs=("api",), applies=None),  # KerasLayer is TF Hub's name
)
