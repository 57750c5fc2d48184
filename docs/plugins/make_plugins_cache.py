#!/usr/bin/python3
"""The hotdoc plugin cache of the ssim2 plugin: docs/plugins/gst_plugins_cache.json.

    make_plugins_cache.py [--check] PLUGIN CACHE

GStreamer's documentation build (hotdoc's gst extension) reads a module's
plugins from this JSON file; each GStreamer module checks its own in and CI
fails when it is stale. GStreamer writes it with gst-hotdoc-plugins-scanner,
which distributions do not ship: this script describes the built PLUGIN
(build/gst/libgstssim2.so) in the same schema from GStreamer's own
introspection, through PyGObject (the distribution's python3). It writes
CACHE, or with --check compares and exits 1 with a diff when CACHE is stale.
Refresh it with `ninja -C <build> plugins-cache`. Either way it also checks
that the element and each of its properties has a gtk-doc block with a
`Since:` tag in gst/*.cpp (GStreamer's convention; hotdoc reads them from
the sources).

The schema, as the scanner writes it: per plugin its details and "elements";
per element its factory details (but long-name), "rank", "hierarchy",
"interfaces", own "properties" (values read from a new instance, as strings,
with "min"/"max" for numbers), own "signals", "pad-templates" (caps as
gst-inspect lays them out), and under "other-types" the enums that the plugin
marks as plugin API. Strings that the scanner passes through its escaping
have each '%' doubled, as in GStreamer's caches ("sink_%%u"). Written sorted,
indented by 4.
"""
import argparse
import difflib
import json
import os
import re
import sys
import tempfile

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import GLib, GObject, Gst
except (ImportError, ValueError) as e:
    sys.exit(f"make_plugins_cache: PyGObject with GStreamer is needed ({e}): run it with "
             "the distribution's /usr/bin/python3 (python3-gi, gir1.2-gstreamer-1.0)")

RANKS = [(Gst.Rank.NONE, "none"), (Gst.Rank.MARGINAL, "marginal"),
         (Gst.Rank.SECONDARY, "secondary"), (Gst.Rank.PRIMARY, "primary")]
# Package suffixes that GStreamer's cache generator drops.
PACKAGE_SUFFIX = re.compile(r" git$| source release$| prerelease$")


def escaped(text):
    """A string as the scanner's escaping leaves it (NULL as "NULL")."""
    return "NULL" if text is None else text.replace("%", "%%")


def rank_name(rank):
    for value, name in RANKS:
        if rank == value:
            return name
    value, name = min(RANKS, key=lambda r: abs(rank - r[0]))
    return f"{name} {'+' if rank > value else '-'} {abs(rank - value)}"


def other_type(gtype, other_types, value=None):
    """Records an enum type that the plugin marks as plugin API (`value`: one
    of its values, which gives its class)."""
    is_api, flags = Gst.type_is_plugin_api(gtype)
    if not is_api or gtype.name in other_types:
        return
    if not gtype.is_a(GObject.TYPE_ENUM):
        sys.exit(f"make_plugins_cache: plugin API type {gtype.name} is not an enum: "
                 "teach this script its schema")
    if flags & Gst.PluginAPIFlags.MEMBERS:
        other_types[gtype.name] = {"kind": "enum", "ignore-enum-members": True}
        return
    values = sorted(type(value).__enum_values__.items())
    other_types[gtype.name] = {
        "kind": "enum",
        "values": [{"name": escaped(v.value_nick), "value": str(n), "desc": escaped(v.value_name)}
                   for n, v in values]}


def property_entry(element, spec, other_types):
    flags = int(spec.flags)
    if flags & Gst.PARAM_MUTABLE_PLAYING:
        mutable = "playing"
    elif flags & Gst.PARAM_MUTABLE_PAUSED:
        mutable = "paused"
    elif flags & Gst.PARAM_MUTABLE_READY:
        mutable = "ready"
    else:
        mutable = "null"
    entry = {
        "construct-only": bool(flags & GObject.ParamFlags.CONSTRUCT_ONLY),
        "construct": bool(flags & GObject.ParamFlags.CONSTRUCT),
        "readable": bool(flags & GObject.ParamFlags.READABLE),
        "writable": bool(flags & GObject.ParamFlags.WRITABLE),
        "blurb": escaped(spec.blurb),
        "controllable": bool(flags & Gst.PARAM_CONTROLLABLE),
        "conditionally-available": bool(flags & Gst.PARAM_CONDITIONALLY_AVAILABLE),
        "mutable": mutable,
        "type": spec.value_type.name,
    }
    readable = flags & GObject.ParamFlags.READABLE
    value = (element.get_property(spec.name)
             if readable and not flags & Gst.PARAM_DOC_SHOW_DEFAULT else spec.default_value)
    other_type(spec.value_type, other_types, value)
    vtype = spec.value_type
    if vtype == GObject.TYPE_STRING:
        entry["default"] = escaped(value)
    elif vtype == GObject.TYPE_BOOLEAN:
        entry["default"] = "true" if value else "false"
    elif vtype in (GObject.TYPE_INT, GObject.TYPE_UINT):
        # The scanner prints both with %d: G_MAXUINT reads -1.
        signed = lambda v: str(v - (1 << 32) if v >= 1 << 31 else v)  # noqa: E731
        entry.update(default=signed(value), min=signed(spec.minimum), max=signed(spec.maximum))
    elif vtype == GObject.TYPE_UINT64:
        entry.update(default=str(value), min=str(spec.minimum), max=str(spec.maximum))
    elif vtype == GObject.TYPE_INT64:
        # The default as unsigned (the scanner's format), the range signed.
        entry.update(default=str(value % (1 << 64)), min=str(spec.minimum),
                     max=str(spec.maximum))
    elif vtype in (GObject.TYPE_DOUBLE, GObject.TYPE_FLOAT):
        entry.update(default="%g" % value, min="%g" % spec.minimum, max="%g" % spec.maximum)
    elif vtype.is_a(GObject.TYPE_ENUM):
        entry["default"] = f"{escaped(value.value_nick)} ({int(value)})"
    elif vtype == Gst.Structure.__gtype__:
        # As the scanner does: the value's text, none when it is NULL.
        if value is not None:
            entry["default"] = escaped(value.to_string())
    else:
        sys.exit(f"make_plugins_cache: property {spec.name} of type {vtype.name}: "
                 "teach this script its schema")
    return entry


def caps_structure(caps, i):
    """Structure i of caps. GStreamer 1.26's Python overrides hand out a
    wrapper that guards writes, whose context manager yields the structure;
    1.22's give the structure itself."""
    structure = caps.get_structure(i)
    return structure if hasattr(structure, "get_name") else structure.__enter__()


def caps_text(caps):
    """Template caps as the scanner lays them out (gst-inspect's way)."""
    if caps.is_any():
        return "ANY"
    if caps.is_empty():
        return "EMPTY"
    system = Gst.CapsFeatures.from_string("memory:SystemMemory")
    out = ""
    for i in range(caps.get_size()):
        structure, features = caps_structure(caps, i), caps.get_features(i)
        if features is not None and (features.is_any() or not features.is_equal(system)):
            out += f"{chr(10) if i else ''}{structure.get_name()}({features.to_string()}):\n"
        else:
            out += f"{structure.get_name()}:\n"
        for n in range(structure.n_fields()):
            name = structure.nth_field_name(n)
            text = Gst.value_serialize(structure.get_value(name))
            if name in ("format", "rate"):
                text = re.sub(r"\(string\)|\(rate\)", "", text)
            out += f"{name:>15}: {text}\n"
    return escaped(out)


def element_entry(factory, other_types):
    element = factory.create(None)
    if element is None:
        sys.exit(f"make_plugins_cache: cannot create {factory.get_name()}")
    entry = {"rank": rank_name(factory.get_rank())}
    for key in factory.get_metadata_keys():
        if key != "long-name":  # the scanner leaves it out
            entry[key] = escaped(factory.get_metadata(key))
    gtype = element.__gtype__
    hierarchy, t = [], gtype
    while True:
        hierarchy.append(t.name)
        other_type(t, other_types)
        if t == GObject.TYPE_OBJECT:
            break
        t = t.parent
    entry["hierarchy"] = hierarchy
    interfaces = GObject.type_interfaces(gtype)
    if interfaces:
        entry["interfaces"] = [i.name for i in interfaces]
    properties = {spec.name: property_entry(element, spec, other_types)
                  for spec in GObject.list_properties(element) if spec.owner_type == gtype}
    if properties:
        entry["properties"] = properties
    if GObject.signal_list_ids(gtype):
        sys.exit(f"make_plugins_cache: {factory.get_name()} has signals: teach this script "
                 "their schema")
    templates = {}
    for static in factory.get_static_pad_templates():
        template = element.get_pad_template(static.name_template)
        t = {"caps": caps_text(template.get_documentation_caps()),
             "direction": {Gst.PadDirection.SRC: "src",
                           Gst.PadDirection.SINK: "sink"}.get(static.direction, "unknown"),
             "presence": {Gst.PadPresence.ALWAYS: "always", Gst.PadPresence.SOMETIMES: "sometimes",
                          Gst.PadPresence.REQUEST: "request"}.get(static.presence, "unknown")}
        pad_type = template.get_property("gtype")
        if pad_type not in (GObject.TYPE_NONE, Gst.Pad.__gtype__):
            t["type"] = pad_type.name
            if Gst.type_is_plugin_api(pad_type)[0]:
                sys.exit(f"make_plugins_cache: pad type {pad_type.name} is plugin API: teach "
                         "this script its schema")
        templates[escaped(static.name_template)] = t
    if templates:
        entry["pad-templates"] = templates
    return entry


def describe(plugin_path):
    Gst.init(None)
    plugin = Gst.Plugin.load_file(plugin_path)
    name = plugin.get_name()
    other_types = {}
    elements = {}
    for feature in Gst.Registry.get().get_feature_list_by_plugin(name):
        if isinstance(feature, Gst.ElementFactory) and not feature.get_skip_documentation():
            elements[feature.get_name()] = element_entry(feature, other_types)
    filename = os.path.basename(plugin_path).split(".", 1)[0]
    if filename.startswith("lib"):
        filename = filename[3:]
    return {name: {
        "description": plugin.get_description(),
        "filename": filename,
        "source": plugin.get_source(),
        "package": PACKAGE_SUFFIX.sub("", plugin.get_package()),
        "license": plugin.get_license(),
        "url": plugin.get_origin(),
        "elements": elements,
        "tracers": {},
        "other-types": other_types,
    }}


SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "gst")


def missing_doc_blocks(cache):
    """What lacks a gtk-doc block with `Since:` in the sources: the element
    ("SECTION:element-NAME") and each property ("Type:property:")."""
    text = ""
    for name in sorted(os.listdir(SOURCES)):
        if name.endswith((".cpp", ".c", ".h")):
            with open(os.path.join(SOURCES, name), encoding="utf-8") as f:
                text += f.read()
    blocks = re.findall(r"/\*\*\n(.*?)\*/", text, re.S)
    missing = []
    for plugin in cache.values():
        for element_name, element in plugin["elements"].items():
            heads = [f"SECTION:element-{element_name}"] + [
                f"{element['hierarchy'][0]}:{p}:" for p in element.get("properties", {})]
            for head in heads:
                if not any(re.match(r"\s*\* " + re.escape(head), b) and "Since:" in b
                           for b in blocks):
                    missing.append(head)
    return missing


def render(cache):
    return json.dumps(cache, indent=4, sort_keys=True, ensure_ascii=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with CACHE and exit 1 when it is stale")
    parser.add_argument("plugin")
    parser.add_argument("cache")
    args = parser.parse_args()
    # Only the plugin under test, in a registry of its own.
    with tempfile.TemporaryDirectory() as registry:
        os.environ["GST_REGISTRY_1_0"] = os.path.join(registry, "registry.bin")
        os.environ["GST_PLUGIN_SYSTEM_PATH_1_0"] = ""
        os.environ["GST_PLUGIN_PATH_1_0"] = ""
        cache = describe(os.path.abspath(args.plugin))
    text = render(cache)
    missing = missing_doc_blocks(cache)
    if missing:
        print("make_plugins_cache: no gtk-doc block with a Since: tag in gst/ for " +
              ", ".join(missing))
        return 1
    if not args.check:
        with open(args.cache, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        print(f"{args.cache} written")
        return 0
    try:
        with open(args.cache, encoding="utf-8") as f:
            current = f.read()
    except OSError as e:
        print(f"make_plugins_cache: cannot read {args.cache}: {e}")
        return 1
    if current == text:
        print(f"{args.cache} is current")
        return 0
    sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                               args.cache, "from the built plugin"))
    print(f"\n{args.cache} is stale: refresh it with `ninja -C <build> plugins-cache` "
          "and commit it")
    return 1


if __name__ == "__main__":
    sys.exit(main())
