"""[metadefs] options: the metadata definitions catalog."""

from oslo_config import cfg

GROUP = cfg.OptGroup('metadefs', title='Metadata definitions catalog')

ALL_OPTS = [
    cfg.StrOpt('definitions_dir',
               help='Directory of metadefs JSON definition files that '
                    'blazar-ext-manage metadefs load reads by default and '
                    'the embedded default loads on first start. Unset: '
                    'the files shipped with blazar_ext '
                    '(etc/blazar-ext/metadefs).'),
    cfg.BoolOpt('load_on_first_start', default=True,
                help='Whether blazar-ext-all-in-one loads the definition '
                     'files when the catalog is empty.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(ALL_OPTS, group=GROUP)


def list_opts() -> dict:
    return {GROUP: ALL_OPTS}
