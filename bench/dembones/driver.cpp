// Same-machine reference timing of EA's Dem Bones on its own sample clip,
// for bench/bench_dembones.sh (which builds this file against a user's
// Dem Bones checkout; no Dem Bones code lives in this repository).
//
// Reads $SKF_DATA/dembones/Bone_Anim.pc2 (the animation, a PC2 point cache)
// and $SKF_DATA/dembones/Bone_rest.obj (rest pose and polygons), runs one
// Dem Bones decomposition and prints one line:
//   bones B nnz Z transAffine T cpu_s S rms R iters N
// cpu_s is process CPU time (user + system, all threads) of init() +
// compute() only; rms is sqrt(sum of squared vertex errors / (frames *
// vertices)), computed here and checked against Dem Bones' rmse().
//
// Parameters are those of Dem Bones' command-line tool (src/command/mainCmd.cpp,
// version 1.2.0) but nnz: the library's defaults (nInitIters 10, nTransIters 5,
// transAffine 10, transAffineNorm 4, nWeightsIters 3, weightsSmooth 1e-4,
// weightsSmoothStep 1) with at most 100 global iterations, stopping once the
// RMS has fallen by less than 1e-3 of itself in 3 consecutive iterations
// (the tool's --nIters, --tolerance and --patience defaults; the RMS each
// iteration is part of the timed run, as it is in the tool). --fixed-iters N
// instead runs exactly N iterations with no stopping rule (the library class
// alone: its constructor's nIters is 30).
//
// usage: driver BONES NNZ [TRANS_AFFINE] [--fixed-iters N]
//        (env SKF_DATA, default ../shared/data)
#include <DemBones/DemBonesExt.h>

#include <sys/resource.h>
#include <sys/time.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string &msg)
{
    std::fprintf(stderr, "driver: %s\n", msg.c_str());
    std::exit(1);
}

double cpu_seconds()
{
    rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec) +
           double(ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_stime.tv_usec);
}

double wall_seconds()
{
    timeval tv;
    gettimeofday(&tv, nullptr);
    return double(tv.tv_sec) + 1e-6 * double(tv.tv_usec);
}

// little-endian field decoding, independent of the host's byte order
uint32_t le_u32(const unsigned char *p)
{
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

float le_f32(const unsigned char *p)
{
    uint32_t u = le_u32(p);
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// The two readers below are this file's own rather than libskinfit's: the
// driver is built outside CMake against Eigen alone (linking the static
// library would pull in its whole dependency set), and Dem Bones' Laplacian
// wants the OBJ's quads as polygons, where skinfit's readers fan them into
// triangles (other neighbours, other smoothing, other RMS figures).
struct PointCache {
    size_t points = 0, samples = 0;
    std::vector<float> xyz; // samples x points x 3
};

PointCache read_pc2(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        die("cannot open " + path);
    std::vector<unsigned char> buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t header = 12 + 4 * 5;
    if (buf.size() < header || std::memcmp(buf.data(), "POINTCACHE2", 12) != 0)
        die(path + ": not a PC2 point cache (bad magic)");
    int32_t version = int32_t(le_u32(&buf[12]));
    int32_t points = int32_t(le_u32(&buf[16]));
    int32_t samples = int32_t(le_u32(&buf[28]));
    if (version != 1)
        die(path + ": unsupported PC2 version " + std::to_string(version));
    if (points <= 0 || samples <= 0)
        die(path + ": empty point cache");
    PointCache pc;
    pc.points = size_t(points);
    pc.samples = size_t(samples);
    size_t n = pc.points * pc.samples * 3;
    if (buf.size() != header + 4 * n)
        die(path + ": size " + std::to_string(buf.size()) + " does not match " + std::to_string(points) +
            " points x " + std::to_string(samples) + " samples");
    pc.xyz.resize(n);
    for (size_t i = 0; i < n; ++i)
        pc.xyz[i] = le_f32(&buf[header + 4 * i]);
    return pc;
}

struct ObjMesh {
    std::vector<double> xyz;
    std::vector<std::vector<int>> faces;
};

ObjMesh read_obj(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        die("cannot open " + path);
    ObjMesh mesh;
    std::string line;
    size_t lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        std::istringstream ls(line);
        std::string tag;
        if (!(ls >> tag))
            continue;
        if (tag == "v") {
            double x, y, z;
            if (!(ls >> x >> y >> z))
                die(path + ":" + std::to_string(lineno) + ": bad vertex");
            mesh.xyz.insert(mesh.xyz.end(), {x, y, z});
        } else if (tag == "f") {
            std::vector<int> face;
            std::string tok;
            long nv = long(mesh.xyz.size() / 3);
            while (ls >> tok) {
                long idx = std::strtol(tok.c_str(), nullptr, 10); // "v", "v/vt", "v//vn", "v/vt/vn"
                if (idx < 0)
                    idx += nv + 1; // relative index
                if (idx < 1 || idx > nv)
                    die(path + ":" + std::to_string(lineno) + ": face index out of range");
                face.push_back(int(idx - 1));
            }
            if (face.size() < 3)
                die(path + ":" + std::to_string(lineno) + ": face with fewer than 3 corners");
            mesh.faces.push_back(face);
        }
    }
    if (mesh.xyz.empty() || mesh.faces.empty())
        die(path + ": no vertices or no faces");
    return mesh;
}

class Model : public Dem::DemBonesExt<double, float> {
public:
    bool stopping_rule = true; // the command-line tool's convergence test
    double tolerance = 1e-3;
    int patience = 3;
    int iterations = 0;

    bool cbIterEnd() override
    {
        ++iterations;
        if (!stopping_rule)
            return false;
        double e = rmse();
        // a slow step: the RMS fell (or held to within weightEps) by less than
        // tolerance of itself; patience slow steps in a row end the run
        bool slow = last_ >= 0 && e < last_ * (1 + weightEps) && last_ - e < tolerance * last_;
        slow_left_ = slow ? slow_left_ - 1 : patience;
        last_ = e;
        return slow_left_ == 0;
    }

private:
    double last_ = -1;  // the previous iteration's RMS; < 0 before the first
    int slow_left_ = 0; // slow steps left; the first iteration (never slow) sets it to patience
};

int parse_int(const char *s, const char *what)
{
    char *end = nullptr;
    long v = std::strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > 1000)
        die(std::string("bad ") + what + " '" + s + "'");
    return int(v);
}

} // namespace

int main(int argc, char **argv)
{
    int fixed_iters = 0;
    std::vector<const char *> pos;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--fixed-iters") && i + 1 < argc)
            fixed_iters = parse_int(argv[++i], "--fixed-iters");
        else
            pos.push_back(argv[i]);
    }
    if (pos.size() < 2 || pos.size() > 3) {
        std::fprintf(stderr, "usage: %s BONES NNZ [TRANS_AFFINE] [--fixed-iters N]   (env SKF_DATA)\n", argv[0]);
        return 2;
    }
    int bones = parse_int(pos[0], "BONES");
    int nnz = parse_int(pos[1], "NNZ");
    double trans_affine = 10.0;
    if (pos.size() == 3) {
        char *end = nullptr;
        trans_affine = std::strtod(pos[2], &end);
        if (!*pos[2] || *end || !(trans_affine >= 0))
            die(std::string("bad TRANS_AFFINE '") + pos[2] + "'");
    }
    const char *env = std::getenv("SKF_DATA");
    std::string dir = std::string(env && *env ? env : "../shared/data") + "/dembones/";

    PointCache pc = read_pc2(dir + "Bone_Anim.pc2");
    ObjMesh rest = read_obj(dir + "Bone_rest.obj");
    const size_t V = pc.points, F = pc.samples;
    if (rest.xyz.size() != 3 * V)
        die("Bone_rest.obj has " + std::to_string(rest.xyz.size() / 3) + " vertices, the cache " +
            std::to_string(V));
    double rest_dev = 0; // the OBJ is the cache's frame 0: say how closely
    for (size_t i = 0; i < 3 * V; ++i)
        rest_dev = std::fmax(rest_dev, std::fabs(rest.xyz[i] - double(pc.xyz[i])));

    Model model;
    // set explicitly, so that a checkout with other defaults still measures
    // the same thing; nnz and transAffine from the command line
    model.stopping_rule = fixed_iters == 0;
    model.nIters = fixed_iters ? fixed_iters : 100;
    model.nInitIters = 10;
    model.nTransIters = 5;
    model.transAffine = trans_affine;
    model.transAffineNorm = 4;
    model.nWeightsIters = 3;
    model.nnz = nnz;
    model.weightsSmooth = 1e-4;
    model.weightsSmoothStep = 1;

    model.nV = int(V);
    model.nF = int(F);
    model.nS = 1;
    model.fStart.resize(2);
    model.fStart << 0, int(F);
    model.subjectID = Eigen::VectorXi::Zero(int(F));
    model.u.resize(3, int(V));
    for (size_t i = 0; i < V; ++i)
        for (int c = 0; c < 3; ++c)
            model.u(c, int(i)) = rest.xyz[3 * i + size_t(c)];
    model.v.resize(3 * int(F), int(V));
    for (size_t k = 0; k < F; ++k)
        for (size_t i = 0; i < V; ++i)
            for (int c = 0; c < 3; ++c)
                model.v(3 * int(k) + c, int(i)) = pc.xyz[(k * V + i) * 3 + size_t(c)];
    model.fv = rest.faces;
    model.nB = bones;

    double c0 = cpu_seconds(), w0 = wall_seconds();
    model.init();
    model.compute();
    double cpu = cpu_seconds() - c0, wall = wall_seconds() - w0;

    // reconstruction error, independently of Dem Bones' rmse()
    double sum = 0;
    for (size_t k = 0; k < F; ++k)
        for (int i = 0; i < int(V); ++i) {
            Eigen::Vector3d p = Eigen::Vector3d::Zero();
            Eigen::Vector3d r = model.u.col(i);
            for (Eigen::SparseMatrix<double>::InnerIterator it(model.w, i); it; ++it) {
                Eigen::Matrix4d M = model.m.block<4, 4>(4 * int(k), 4 * int(it.row()));
                p += it.value() * (M.topLeftCorner<3, 3>() * r + M.topRightCorner<3, 1>());
            }
            Eigen::Vector3d q = model.v.block<3, 1>(3 * int(k), i).cast<double>();
            sum += (p - q).squaredNorm();
        }
    double rms = std::sqrt(sum / double(F * V));
    double rms_db = model.rmse();
    std::fprintf(stderr,
                 "driver: %zu vertices x %zu frames, %zu polygons (rest vs frame 0 max |d| %.3g); "
                 "bones requested %d, solved %d; wall %.3f s; Dem Bones rmse() %.9g\n",
                 V, F, rest.faces.size(), rest_dev, bones, model.nB, wall, rms_db);
    if (std::fabs(rms - rms_db) > 1e-9 * std::fmax(1.0, rms))
        die("RMS disagrees with Dem Bones' rmse(): " + std::to_string(rms) + " vs " + std::to_string(rms_db));
    std::printf("bones %d nnz %d transAffine %g cpu_s %.3f rms %.7f iters %d\n", bones, nnz, trans_affine, cpu,
                rms, model.iterations);
    return 0;
}
